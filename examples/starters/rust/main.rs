// Starter bot for the `rust` runtime: a uniformly random legal action, in every game.
//
// Built on the server as `rustc --edition 2021 -C opt-level=2 -o bot main.rs` (Debian's rustc
// 1.63; one crate, and no crates from outside: no serde, no rand), run as `./bot`. So the
// starter carries what it needs: a small JSON reader and writer (`Json`) and a small random
// generator (`Rng`). Put your logic in `choose`.
//
// stdout is the protocol channel: one line per message, flushed at once. Log to stderr.
use std::io::{self, BufRead, Write};

/// The generator is seeded again at each `start` from this and the match's place in its
/// series, so a match plays the same way whichever process plays it.
const SEED: u64 = 12345;

/// One of observation["legal_actions"], returned exactly as listed. `time_left` is the
/// seconds this reply may take (the decision limit plus what is left of the time bank).
fn choose(observation: &Json, time_left: f64, rng: &mut Rng) -> Json {
    let _ = time_left;
    let legal = observation.get("legal_actions").and_then(Json::as_array).expect("legal_actions");
    legal[rng.below(legal.len())].clone()
}

fn send(out: &mut impl Write, message: &Json) {
    // Rust's stdout is buffered: a reply still in the buffer has not been sent, so flush.
    writeln!(out, "{}", message).expect("stdout");
    out.flush().expect("stdout");
}

fn main() {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut rng = Rng::new(SEED);
    let mut line = String::new();
    loop {
        line.clear();
        // The end of input (0 bytes read) ends the series: the loop, and the bot, end.
        if input.read_line(&mut line).expect("stdin") == 0 {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let message = Json::parse(&line).expect("a JSON line");
        match message.get("type").and_then(Json::as_str) {
            Some("start") => {
                let place = message.get("series").and_then(|s| s.get("match"));
                let match_number = place.and_then(Json::as_f64).unwrap_or(1.0) as u64;
                rng = Rng::new(SEED + match_number);
                let game = message.get("game").and_then(Json::as_str).unwrap_or("?");
                let seat = message.get("seat").and_then(Json::as_f64).unwrap_or(-1.0);
                eprintln!("start: {} seat {}", game, seat);
                // "series": true: keep this process for the series' next matches.
                let ready = Json::Object(vec![
                    ("type".to_string(), Json::String("ready".to_string())),
                    ("series".to_string(), Json::Bool(true)),
                ]);
                send(&mut out, &ready);
            }
            Some("decide") => {
                let time_left = message.get("time_left").and_then(Json::as_f64).unwrap_or(0.0);
                let observation = message.get("observation").expect("observation");
                let action = choose(observation, time_left, &mut rng);
                send(&mut out, &Json::Object(vec![("action".to_string(), action)]));
            }
            Some("end") => {
                // No answer; the next line is the next match's start, or the input ends.
                let scores = message.get("scores").map(|s| s.to_string()).unwrap_or_default();
                eprintln!("end: scores {}", scores);
            }
            _ => {}
        }
    }
}

/// splitmix64: small, fast and good enough for picking moves.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in 0..n, uniformly (rejecting the few draws that would favour small ones).
    fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
}

/// A JSON value. Objects keep their keys in order.
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => Some(*n),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&Vec<Json>> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    fn parse(text: &str) -> Result<Json, String> {
        let mut parser = Parser { bytes: text.as_bytes(), at: 0 };
        let value = parser.value()?;
        parser.skip_space();
        if parser.at != parser.bytes.len() {
            return Err(format!("unexpected text at byte {}", parser.at));
        }
        Ok(value)
    }
}

/// Compact JSON, as the protocol reads it: `format!("{}", value)` or `value.to_string()`.
impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Json::Null => write!(f, "null"),
            Json::Bool(b) => write!(f, "{}", b),
            Json::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => write!(f, "{}", *n as i64),
            Json::Number(n) => write!(f, "{}", n),
            Json::String(s) => write_string(f, s),
            Json::Array(items) => {
                write!(f, "[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{}", item)?;
                }
                write!(f, "]")
            }
            Json::Object(fields) => {
                write!(f, "{{")?;
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write_string(f, key)?;
                    write!(f, ":{}", value)?;
                }
                write!(f, "}}")
            }
        }
    }
}

fn write_string(f: &mut std::fmt::Formatter, s: &str) -> std::fmt::Result {
    write!(f, "\"")?;
    for c in s.chars() {
        match c {
            '"' => write!(f, "\\\"")?,
            '\\' => write!(f, "\\\\")?,
            '\n' => write!(f, "\\n")?,
            '\r' => write!(f, "\\r")?,
            '\t' => write!(f, "\\t")?,
            c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
            c => write!(f, "{}", c)?,
        }
    }
    write!(f, "\"")
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Parser<'a> {
    fn skip_space(&mut self) {
        while self.at < self.bytes.len() && b" \t\r\n".contains(&self.bytes[self.at]) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", byte as char, self.at))
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(format!("unexpected text at byte {}", self.at))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_space();
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(_) => self.number(),
            None => Err("unexpected end of the line".to_string()),
        }
    }

    fn object(&mut self) -> Result<Json, String> {
        self.expect(b'{')?;
        let mut fields = Vec::new();
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Json::Object(fields));
        }
        loop {
            self.skip_space();
            let key = self.string()?;
            self.skip_space();
            self.expect(b':')?;
            fields.push((key, self.value()?));
            self.skip_space();
            if self.peek() == Some(b',') {
                self.at += 1;
            } else {
                self.expect(b'}')?;
                return Ok(Json::Object(fields));
            }
        }
    }

    fn array(&mut self) -> Result<Json, String> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_space();
            if self.peek() == Some(b',') {
                self.at += 1;
            } else {
                self.expect(b']')?;
                return Ok(Json::Array(items));
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or("a short \\u escape")?;
        let text = std::str::from_utf8(digits).map_err(|e| e.to_string())?;
        self.at += 4;
        u32::from_str_radix(text, 16).map_err(|e| e.to_string())
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let byte = self.peek().ok_or("an unterminated string")?;
            self.at += 1;
            match byte {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => {
                    let escape = self.peek().ok_or("an unterminated string")?;
                    self.at += 1;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let mut code = self.hex4()?;
                            if (0xD800..0xDC00).contains(&code) && self.bytes[self.at..].starts_with(b"\\u") {
                                self.at += 2;
                                let low = self.hex4()?;
                                code = 0x10000 + ((code - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                            }
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(format!("a bad escape at byte {}", self.at)),
                    };
                    let mut buffer = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                }
                _ => out.push(byte),
            }
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        while let Some(b) = self.peek() {
            if b.is_ascii_digit() || b"+-.eE".contains(&b) {
                self.at += 1;
            } else {
                break;
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).map_err(|e| e.to_string())?;
        text.parse::<f64>().map(Json::Number).map_err(|_| format!("a bad number at byte {}", start))
    }
}
