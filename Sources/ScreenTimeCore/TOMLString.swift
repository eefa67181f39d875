/// A TOML basic string ("…") of any text: quotes and backslashes escaped, control characters as
/// `\n`, `\t`, `\r` or `\uXXXX`. For what a parent's change writes into a policy file (the
/// daemon's `policy_change`, the parents' page, setup).
public enum TOMLString {
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for s in text.unicodeScalars {
            switch s {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if s.value < 0x20 || s.value == 0x7F {
                    let hex = String(s.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(s)
                }
            }
        }
        return out + "\""
    }
}
