// Starter bot for the `java` runtime: a uniformly random legal action, in every game.
//
// Built on the server as `javac -d classes *.java` (Java 17; every .java file at the upload's
// root, in the default package), run as `java -XX:+UseSerialGC -Xss8m -cp classes Bot`. The
// JDK has no JSON library, so Json.java beside this file reads and writes it. Put your logic in
// choose.
//
// stdout is the protocol channel: one line per message, flushed at once. Log to stderr.

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

public class Bot {
    /** The generator is seeded again at each start from this and the match's place in its
     * series, so a match plays the same way whichever process plays it. */
    static final long SEED = 12345;

    /** One of observation["legal_actions"], returned exactly as listed. timeLeft is the seconds
     * this reply may take (the decision limit plus what is left of the time bank). */
    static Object choose(Map<String, Object> observation, double timeLeft, Random rng) {
        List<Object> legal = Json.list(observation.get("legal_actions"));
        return legal.get(rng.nextInt(legal.size()));
    }

    static void send(Writer out, Map<String, Object> message) throws IOException {
        // The writer is buffered: a reply still in the buffer has not been sent, so flush.
        out.write(Json.write(message));
        out.write('\n');
        out.flush();
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(
            new InputStreamReader(new FileInputStream(FileDescriptor.in), StandardCharsets.UTF_8));
        Writer out = new BufferedWriter(
            new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8));
        Random rng = new Random(SEED);
        String line;
        // The end of input (null) ends the series: the loop, and the bot, end.
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> message = Json.map(Json.parse(line));
            String type = (String) message.get("type");
            if ("start".equals(type)) {
                Object series = message.get("series");
                long match = series == null ? 1 : Json.number(Json.map(series).get("match")).longValue();
                rng = new Random(SEED + match);
                System.err.println("start: " + message.get("game") + " seat " + message.get("seat"));
                // "series": true: keep this process for the series' next matches.
                Map<String, Object> ready = new LinkedHashMap<>();
                ready.put("type", "ready");
                ready.put("series", true);
                send(out, ready);
            } else if ("decide".equals(type)) {
                double timeLeft = Json.number(message.get("time_left")).doubleValue();
                Map<String, Object> reply = new LinkedHashMap<>();
                reply.put("action", choose(Json.map(message.get("observation")), timeLeft, rng));
                send(out, reply);
            } else if ("end".equals(type)) {
                // No answer; the next line is the next match's start, or the input ends.
                System.err.println("end: winner " + message.get("winner") + ", scores "
                    + Json.write(message.get("scores")));
            }
        }
    }
}
