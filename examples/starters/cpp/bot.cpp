// Starter bot for the `cpp` runtime: a uniformly random legal action, in every game.
//
// Built on the server as `g++ -std=c++20 -O2 -o bot *.cpp` (every *.cpp at the upload's
// root; headers beside them), run as `./bot`. JSON through nlohmann-json, whose header
// <nlohmann/json.hpp> is available. Put your logic in `choose`.
//
// stdout is the protocol channel: one line per message, flushed at once. Log to stderr.
#include <iostream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

using json = nlohmann::json;

// The generator is seeded again at each `start` from this and the match's place in its
// series, so a match plays the same way whichever process plays it.
constexpr unsigned SEED = 12345;

// One of observation["legal_actions"], returned exactly as listed. `time_left` is the
// seconds this reply may take (the decision limit plus what is left of the time bank).
json choose(const json& observation, double time_left, std::mt19937& rng) {
    (void)time_left;
    const json& legal = observation.at("legal_actions");
    std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
    return legal.at(pick(rng));
}

void send(const json& message) {
    // std::cout is buffered: a reply still in the buffer has not been sent, so flush.
    std::cout << message.dump() << '\n' << std::flush;
}

int main() {
    // Streams kept in step with C's stdio read one character at a time: unsynchronised,
    // reading a decide line (a kilobyte or more) costs a fraction. Then write through
    // std::cout and std::cerr only, not printf.
    std::ios::sync_with_stdio(false);
    std::mt19937 rng(SEED);
    std::string line;
    // The end of input ends the series: the loop, and the bot, end.
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        const json message = json::parse(line);
        const std::string type = message.value("type", "");
        if (type == "start") {
            const int match = message.contains("series") ? message["series"].value("match", 1) : 1;
            rng.seed(SEED + match);
            std::cerr << "start: " << message.at("game").get<std::string>() << " seat "
                      << message.at("seat").get<int>() << std::endl;
            // "series": true: keep this process for the series' next matches.
            send({{"type", "ready"}, {"series", true}});
        } else if (type == "decide") {
            const double time_left = message.at("time_left").get<double>();
            send({{"action", choose(message.at("observation"), time_left, rng)}});
        } else if (type == "end") {
            // No answer; the next line is the next match's start, or the input ends.
            std::cerr << "end: winner " << message.at("winner") << ", scores "
                      << message.at("scores").dump() << std::endl;
        }
    }
    return 0;
}
