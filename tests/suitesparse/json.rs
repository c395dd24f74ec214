//! A small JSON reader for the case file (no serde in the dev-dependencies).
//! Numbers keep their text, so a 64-bit integer or a float parses exactly at the
//! case's element type.

/// A JSON value; objects keep their key order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;

impl Json {
    /// Parses one JSON text.
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut p = Parser {
            s: text.as_bytes(),
            at: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.at != p.s.len() {
            return Err(format!("trailing text at byte {}", p.at));
        }
        Ok(v)
    }

    /// The member `key` of an object (`Null` where absent).
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map_or(&NULL, |(_, v)| v),
            _ => &NULL,
        }
    }

    /// True where present and not null.
    pub fn has(&self, key: &str) -> bool {
        !matches!(self.get(key), Json::Null)
    }

    /// The string member `key`, `None` where absent or null.
    pub fn opt_str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The string member `key` (panics where absent).
    pub fn str(&self, key: &str) -> &str {
        self.opt_str(key)
            .unwrap_or_else(|| panic!("case has no string {key:?}"))
    }

    /// The boolean member `key` (absent: false).
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Json::Bool(true))
    }

    /// The number's text.
    pub fn num(&self) -> &str {
        match self {
            Json::Num(s) => s,
            other => panic!("not a number: {other:?}"),
        }
    }

    /// An integer member.
    pub fn int(&self, key: &str) -> i64 {
        self.get(key).num().parse().expect("an integer")
    }

    /// A non-negative integer member.
    pub fn usize(&self, key: &str) -> usize {
        self.get(key).num().parse().expect("a non-negative integer")
    }

    /// The items of an array (empty for anything else).
    pub fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(v) => v,
            _ => &[],
        }
    }

    /// An array member of non-negative integers.
    pub fn indices(&self, key: &str) -> Vec<usize> {
        self.get(key)
            .arr()
            .iter()
            .map(|j| j.num().parse().expect("an index"))
            .collect()
    }
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", c as char, self.at))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        let Some(&c) = self.s.get(self.at) else {
            return Err("unexpected end".into());
        };
        match c {
            b'{' => {
                self.at += 1;
                let mut m = Vec::new();
                self.ws();
                if self.s.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Obj(m));
                }
                loop {
                    self.ws();
                    let Json::Str(k) = self.value()? else {
                        return Err(format!("object key expected at byte {}", self.at));
                    };
                    self.eat(b':')?;
                    m.push((k, self.value()?));
                    self.ws();
                    match self.s.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Obj(m));
                        }
                        _ => return Err(format!("',' or '}}' expected at byte {}", self.at)),
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut v = Vec::new();
                self.ws();
                if self.s.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Arr(v));
                }
                loop {
                    v.push(self.value()?);
                    self.ws();
                    match self.s.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Arr(v));
                        }
                        _ => return Err(format!("',' or ']' expected at byte {}", self.at)),
                    }
                }
            }
            b'"' => {
                self.at += 1;
                let mut out = String::new();
                loop {
                    let Some(&c) = self.s.get(self.at) else {
                        return Err("unterminated string".into());
                    };
                    self.at += 1;
                    match c {
                        b'"' => return Ok(Json::Str(out)),
                        b'\\' => {
                            let e = *self.s.get(self.at).ok_or("bad escape")?;
                            self.at += 1;
                            out.push(match e {
                                b'n' => '\n',
                                b't' => '\t',
                                b'r' => '\r',
                                b'u' => {
                                    let hex = std::str::from_utf8(&self.s[self.at..self.at + 4])
                                        .map_err(|e| e.to_string())?;
                                    self.at += 4;
                                    char::from_u32(
                                        u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?,
                                    )
                                    .unwrap_or('?')
                                }
                                other => other as char,
                            });
                        }
                        _ => {
                            // Multi-byte UTF-8 passes through byte by byte.
                            let start = self.at - 1;
                            let mut end = self.at;
                            while end < self.s.len() && (self.s[end] & 0xC0) == 0x80 {
                                end += 1;
                            }
                            out.push_str(
                                std::str::from_utf8(&self.s[start..end])
                                    .map_err(|e| e.to_string())?,
                            );
                            self.at = end;
                        }
                    }
                }
            }
            b't' | b'f' | b'n' => {
                for (word, v) in [
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                    ("null", Json::Null),
                ] {
                    if self.s[self.at..].starts_with(word.as_bytes()) {
                        self.at += word.len();
                        return Ok(v);
                    }
                }
                Err(format!("bad literal at byte {}", self.at))
            }
            _ => {
                let start = self.at;
                while self.at < self.s.len()
                    && matches!(
                        self.s[self.at],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.at += 1;
                }
                if start == self.at {
                    return Err(format!("unexpected {:?} at byte {start}", c as char));
                }
                Ok(Json::Num(
                    std::str::from_utf8(&self.s[start..self.at])
                        .unwrap()
                        .to_string(),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Json;

    #[test]
    fn parses_the_case_shapes() {
        let j = Json::parse(r#"{"a":[1,-2.5e3,"nan"],"b":null,"c":true,"s":"x\"y"}"#).unwrap();
        assert_eq!(j.get("a").arr()[1].num(), "-2.5e3");
        assert!(!j.has("b") && j.flag("c") && !j.flag("zz"));
        assert_eq!(j.str("s"), "x\"y");
    }
}
