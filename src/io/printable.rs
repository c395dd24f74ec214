//! Making bytes from a file or a command line safe to show in a message.

/// `bytes` as text that cannot act on a terminal: control characters
/// (`\t`, `\n`, `\r`, `\x1b`, `\u{85}`, ...), invisible or direction-changing
/// code points (`\u{202e}`, `\u{200b}`, `\u{feff}`, ...) and bytes that are not
/// UTF-8 (`\xff`) are written as escapes; everything else, backslashes
/// included, is kept as it is, so escaping twice changes nothing more.
///
/// Every error message that quotes a file's content or a name goes through this.
///
/// ```
/// use bitgraphblas::io::printable;
/// assert_eq!(printable(b"\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
/// assert_eq!(printable("a\u{202e}b\tc\n".as_bytes()), "a\\u{202e}b\\tc\\n");
/// assert_eq!(printable(b"caf\xc3\xa9 \xff"), "café \\xff");
/// assert_eq!(printable(printable(b"\x07").as_bytes()), "\\x07");
/// ```
pub fn printable(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_char(&mut out, c);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

fn push_char(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x80 && c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if c.is_control() || invisible(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// Format characters that change how text is shown without being seen:
/// zero-width characters, direction marks, embeddings, overrides and
/// isolates, invisible operators, the byte order mark, interlinear annotation.
fn invisible(c: char) -> bool {
    matches!(c as u32,
        0x061C | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x2064
        | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_raw_survives() {
        let all: Vec<u8> = (0u8..=255).collect();
        let s = printable(&all);
        assert!(s.chars().all(|c| !c.is_control()), "{s:?}");
        assert!(s.contains("\\x00") && s.contains("\\x7f") && s.contains("\\x80"));
        let bidi = "x\u{2066}y\u{85}z";
        assert_eq!(printable(bidi.as_bytes()), "x\\u{2066}y\\u{85}z");
        assert_eq!(
            printable(b"plain text, 1 2 3.5e-3"),
            "plain text, 1 2 3.5e-3"
        );
    }
}
