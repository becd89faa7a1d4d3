// A small JSON reader and writer, enough for the protocol: objects are LinkedHashMap<String,
// Object> (keys in order), arrays ArrayList<Object>, strings String, numbers Long (integers)
// or Double, true and false Boolean, and null is null.

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** The value of one JSON text; IllegalArgumentException if it is not JSON. */
    static Object parse(String text) {
        Json parser = new Json(text);
        Object value = parser.value();
        parser.skipSpace();
        if (parser.at != text.length()) {
            throw parser.error("unexpected text");
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return (List<Object>) value;
    }

    static Number number(Object value) {
        return (Number) value;
    }

    /** Compact JSON, in ASCII (anything else escaped). */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value);
        return out.toString();
    }

    private static void write(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            writeString(out, (String) value);
        } else if (value instanceof Double) {
            double d = (Double) value;
            if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                out.append((long) d);
            } else {
                out.append(d);
            }
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeString(out, (String) entry.getKey());
                out.append(':');
                write(out, entry.getValue());
            }
            out.append('}');
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : (List<?>) value) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(out, item);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass());
        }
    }

    private static void writeString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at character " + at);
    }

    private void skipSpace() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) {
            throw error("expected '" + c + "'");
        }
        at++;
    }

    private boolean literal(String word) {
        if (text.startsWith(word, at)) {
            at += word.length();
            return true;
        }
        return false;
    }

    private Object value() {
        skipSpace();
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(at);
        if (c == '{') {
            return object();
        } else if (c == '[') {
            return array();
        } else if (c == '"') {
            return string();
        } else if (literal("true")) {
            return Boolean.TRUE;
        } else if (literal("false")) {
            return Boolean.FALSE;
        } else if (literal("null")) {
            return null;
        }
        return number();
    }

    private Map<String, Object> object() {
        expect('{');
        Map<String, Object> fields = new LinkedHashMap<>();
        skipSpace();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            return fields;
        }
        while (true) {
            skipSpace();
            String key = string();
            skipSpace();
            expect(':');
            fields.put(key, value());
            skipSpace();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
            } else {
                expect('}');
                return fields;
            }
        }
    }

    private List<Object> array() {
        expect('[');
        List<Object> items = new ArrayList<>();
        skipSpace();
        if (at < text.length() && text.charAt(at) == ']') {
            at++;
            return items;
        }
        while (true) {
            items.add(value());
            skipSpace();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
            } else {
                expect(']');
                return items;
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            } else if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char escape = text.charAt(at++);
            switch (escape) {
                case '"': case '\\': case '/': out.append(escape); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (at + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    // A surrogate pair arrives as two escapes, appended one after the other.
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default: throw error("bad escape");
            }
        }
    }

    private Number number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        String literal = text.substring(start, at);
        if (literal.isEmpty()) {
            throw error("unexpected character");
        }
        try {
            if (literal.matches("-?\\d{1,18}")) {
                return Long.parseLong(literal);
            }
            return Double.parseDouble(literal);
        } catch (NumberFormatException e) {
            throw error("bad number");
        }
    }
}
