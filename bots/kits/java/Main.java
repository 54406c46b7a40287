// A minimal Ellibir bot for the harness protocol (docs/protocol.md): Java 17, standard library only.
//
// It draws from the stock and discards its highest-value card (never a joker while it has another
// card); when the harness refuses a decision, it tries another card. Make it play better by
// changing draw() and play(): both get the current view and what is legal now.
//
// One file on purpose: bot.toml compiles it into /tmp when the process starts (the bot's folder is
// read-only in the sandbox), and the JSON reader and writer below are all the protocol needs.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public final class Main {
    static final String NAME = "starter-java";
    static final String VERSION = "1.0";
    static final int PROTOCOL = 2; // 2: this process may play many matches (new_match after match_end); 1: one match

    static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    // stderr is the bot's own log: the harness keeps its tail with the match.
    static void log(String text) {
        System.err.println(text);
    }

    // C3: 2-10 their number, J Q K 10, A 11, the joker 25.
    static int value(String card) {
        if (card.equals("JK")) return 25;
        String rank = card.substring(0, card.length() - 1);
        switch (rank) {
            case "J": case "Q": case "K": return 10;
            case "A": return 11;
            default: return Integer.parseInt(rank);
        }
    }

    // The cards of the hand that may be discarded: the hand less the copies in legal.must_keep.
    static List<String> discardable(Map<String, Object> view, Map<String, Object> legal) {
        List<String> cards = strings(view.get("hand"));
        for (String card : strings(legal.getOrDefault("must_keep", List.of()))) cards.remove(card);
        return cards;
    }

    // The decisions: change these two to make the bot play ----------------------------------------

    // The draw decision (docs/engine.md): draw the top of the stock.
    static Map<String, Object> draw(Map<String, Object> view, Map<String, Object> legal, Set<String> avoid) {
        return object("draw", "stock");
    }

    // The play decision: no plays, discard the highest card not refused already this turn.
    static Map<String, Object> play(Map<String, Object> view, Map<String, Object> legal, Set<String> avoid) {
        List<String> cards = discardable(view, legal);
        List<String> fresh = new ArrayList<>();
        for (String c : cards) if (!avoid.contains(c)) fresh.add(c);
        if (fresh.isEmpty()) fresh = cards;
        String best = fresh.get(0);
        for (String c : fresh) if (key(c) > key(best)) best = c;
        return object("plays", List.of(), "discard", best);
    }

    static int key(String card) {
        return (card.equals("JK") ? 0 : 100) + value(card);
    }

    // The protocol ---------------------------------------------------------------------------------

    Map<String, Object> view; // the current view, rebuilt from full views and changed fields
    List<Object> history = new ArrayList<>(); // this round's public events
    Set<String> avoid = new HashSet<>(); // discards refused during this turn
    String moment = "";
    int seat = -1;

    Map<String, Object> answer(Map<String, Object> msg) {
        switch ((String) msg.get("type")) {
            case "hello": return hello(msg);
            case "new_match":
                // The next match in this process: nothing of the last one carries over but what you keep on
                // purpose (the harness never shows a process the same deals twice).
                view = null; history = new ArrayList<>(); avoid = new HashSet<>(); moment = "";
                return hello(msg);
            case "round_start": view = null; history = new ArrayList<>(); return null;
            case "events": history.addAll(list(msg.get("events"))); return null;
            case "request": return request(msg);
            case "error": log("refused (" + msg.get("rule") + "): " + msg.get("reason")); return null;
            case "round_end":
                log("round " + msg.get("round") + ": totals " + Json.write(msg.get("totals")));
                return null;
            case "match_end":
                log("match over: ranks " + Json.write(msg.get("ranks")));
                return null; // protocol 2: a new_match may follow; the bot ends when stdin closes
            default: return null;
        }
    }

    Map<String, Object> hello(Map<String, Object> msg) {
        List<Object> protocols = list(msg.getOrDefault("protocols", List.of(1L)));
        if (!protocols.contains((long) PROTOCOL) || !"ellibir".equals(msg.get("game"))) {
            return object("type", "error", "seq", msg.get("seq"), "reason", NAME + " plays ellibir, protocol " + PROTOCOL);
        }
        seat = ((Number) msg.get("seat")).intValue();
        return object("type", "hello", "seq", msg.get("seq"), "name", NAME, "version", VERSION, "protocol", PROTOCOL);
    }

    Map<String, Object> request(Map<String, Object> msg) {
        if (msg.containsKey("view")) view = map(msg.get("view"));
        else view.putAll(map(msg.get("changed")));
        String now = msg.get("round") + "/" + msg.get("turn") + "/" + msg.get("decide");
        if (!now.equals(moment)) {
            moment = now;
            avoid = new HashSet<>();
        }
        Map<String, Object> legal = map(msg.get("legal"));
        Map<String, Object> decision = "draw".equals(msg.get("decide")) ? draw(view, legal, avoid) : play(view, legal, avoid);
        if (decision.containsKey("discard")) avoid.add((String) decision.get("discard"));
        return object("type", "decision", "seq", msg.get("seq"), "decision", decision);
    }

    public static void main(String[] args) throws Exception {
        Main bot = new Main();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            Map<String, Object> reply = bot.answer(map(Json.read(line)));
            if (reply != null) {
                OUT.print(Json.write(reply) + "\n");
                OUT.flush(); // a pipe is not a terminal: without this the harness sees nothing
            }
        }
    }

    // Small helpers for the JSON values: objects are maps, arrays lists, numbers Long or Double.

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    static List<String> strings(Object o) {
        List<String> out = new ArrayList<>();
        for (Object x : list(o)) out.add((String) x);
        return out;
    }

    static Map<String, Object> object(Object... keysAndValues) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) out.put((String) keysAndValues[i], keysAndValues[i + 1]);
        return out;
    }

    // JSON, as much as the protocol uses: read one value from a line, write a value on one line.
    static final class Json {
        private final String s;
        private int at;

        private Json(String s) {
            this.s = s;
        }

        static Object read(String text) {
            Json j = new Json(text);
            Object value = j.value();
            j.space();
            if (j.at != text.length()) throw j.error("text after the value");
            return value;
        }

        private RuntimeException error(String what) {
            return new IllegalArgumentException("JSON: " + what + " at character " + at);
        }

        private void space() {
            while (at < s.length() && " \t\r\n".indexOf(s.charAt(at)) >= 0) at++;
        }

        private Object value() {
            space();
            if (at >= s.length()) throw error("end of text");
            char c = s.charAt(at);
            if (c == '{') return object();
            if (c == '[') return array();
            if (c == '"') return string();
            if (s.startsWith("true", at)) { at += 4; return Boolean.TRUE; }
            if (s.startsWith("false", at)) { at += 5; return Boolean.FALSE; }
            if (s.startsWith("null", at)) { at += 4; return null; }
            return number();
        }

        private Map<String, Object> object() {
            Map<String, Object> out = new LinkedHashMap<>();
            at++;
            space();
            if (s.charAt(at) == '}') { at++; return out; }
            while (true) {
                space();
                String key = string();
                space();
                if (s.charAt(at++) != ':') throw error("':' expected");
                out.put(key, value());
                space();
                char c = s.charAt(at++);
                if (c == '}') return out;
                if (c != ',') throw error("',' or '}' expected");
            }
        }

        private List<Object> array() {
            List<Object> out = new ArrayList<>();
            at++;
            space();
            if (s.charAt(at) == ']') { at++; return out; }
            while (true) {
                out.add(value());
                space();
                char c = s.charAt(at++);
                if (c == ']') return out;
                if (c != ',') throw error("',' or ']' expected");
            }
        }

        private String string() {
            if (s.charAt(at) != '"') throw error("'\"' expected");
            StringBuilder out = new StringBuilder();
            at++;
            while (true) {
                char c = s.charAt(at++);
                if (c == '"') return out.toString();
                if (c != '\\') { out.append(c); continue; }
                char e = s.charAt(at++);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u': out.append((char) Integer.parseInt(s.substring(at, at + 4), 16)); at += 4; break;
                    default: out.append(e); // \" \\ \/
                }
            }
        }

        private Object number() {
            int start = at;
            while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) at++;
            String text = s.substring(start, at);
            if (text.isEmpty()) throw error("a value expected");
            if (text.contains(".") || text.contains("e") || text.contains("E")) return Double.parseDouble(text);
            return Long.parseLong(text);
        }

        static String write(Object v) {
            StringBuilder out = new StringBuilder();
            write(v, out);
            return out.toString();
        }

        private static void write(Object v, StringBuilder out) {
            if (v == null) {
                out.append("null");
            } else if (v instanceof String) {
                quote((String) v, out);
            } else if (v instanceof Map) {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    if (!first) out.append(',');
                    first = false;
                    quote((String) e.getKey(), out);
                    out.append(':');
                    write(e.getValue(), out);
                }
                out.append('}');
            } else if (v instanceof List) {
                out.append('[');
                boolean first = true;
                for (Object x : (List<?>) v) {
                    if (!first) out.append(',');
                    first = false;
                    write(x, out);
                }
                out.append(']');
            } else {
                out.append(v); // Boolean, Long, Integer, Double
            }
        }

        private static void quote(String text, StringBuilder out) {
            out.append('"');
            for (char c : text.toCharArray()) {
                if (c == '"' || c == '\\') out.append('\\').append(c);
                else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                else out.append(c);
            }
            out.append('"');
        }
    }
}
