import ScreenTimeCore
import Testing

/// `title` in an `[[apps]]` entry (docs/policy.md): a regular expression matched anywhere in the
/// focused window's title, `(?i)` at the start ignoring case. Swift's Regex since issue #19; these
/// are the behaviours a parent's pattern relied on under NSRegularExpression.
@Suite("Window title patterns")
struct TitlePatternTests {
    @Test("a pattern matches anywhere in the title, not only the whole of it")
    func anywhere() throws {
        let p = try TitlePattern("Khan Academy")
        #expect(p.matches("Khan Academy"))
        #expect(p.matches("Fractions | Khan Academy — Mozilla Firefox"))
        #expect(!p.matches("khan academy"))
        #expect(!p.matches("Khan  Academy"))
    }

    @Test("(?i) at the start ignores case, also outside ASCII")
    func caseInsensitive() throws {
        let p = try TitlePattern("(?i)khan academy")
        #expect(p.matches("KHAN ACADEMY - Chromium"))
        #expect(try TitlePattern("(?i)übungen").matches("Mathe-ÜBUNGEN"))
        #expect(p.text == "(?i)khan academy")
    }

    @Test("anchors, classes, alternation and repetition keep their usual meaning")
    func syntax() throws {
        #expect(try TitlePattern("^Minecraft").matches("Minecraft 1.21"))
        #expect(try !TitlePattern("^Minecraft").matches("Not Minecraft"))
        #expect(try TitlePattern("Minecraft$").matches("Playing Minecraft"))
        #expect(try TitlePattern("Level \\d+").matches("Tux Math — Level 12"))
        #expect(try !TitlePattern("Level \\d+").matches("Tux Math — Level x"))
        #expect(try TitlePattern("(YouTube|Twitch)").matches("Funny cats - Twitch"))
        #expect(try TitlePattern("a.c").matches("xxaéc"))
        #expect(try TitlePattern("[[:digit:]]{4}").matches("year 2026"))
    }

    @Test("one character of the pattern is one Unicode scalar of the title, as in ICU")
    func scalars() throws {
        // "é" written as e + a combining accent is two scalars (one Character): `.` takes each.
        #expect(try TitlePattern("^e.$").matches("e\u{301}"))
        #expect(try TitlePattern("Cafe").matches("Cafe\u{301}"))
    }

    @Test("a pattern that is not a regular expression is refused")
    func invalid() {
        for bad in ["(unclosed", "[a-", "a{2,1}", "*start"] {
            #expect(throws: (any Error).self, "\(bad)") { try TitlePattern(bad) }
        }
    }
}
