import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// Every file in Malformed/ is a policy a parent could write by mistake. Its first lines say, by
/// hand, what must be reported: `# expect: LINE: MESSAGE` (exact) or `# expect-prefix: LINE: TEXT`.
@Suite("Malformed policies")
struct MalformedPolicyTests {
    static let folder = Bundle.module.url(forResource: "Malformed", withExtension: nil)!
    static let files = try! FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".toml") }.sorted()

    struct Expectation {
        var line: Int
        var text: String
        var exact: Bool
    }

    static func expectations(in text: String) -> [Expectation] {
        text.split(separator: "\n").prefix { $0.hasPrefix("# expect") }.map { raw in
            let exact = raw.hasPrefix("# expect:")
            let rest = raw.drop { $0 != ":" }.dropFirst().drop { $0 == " " }
            let line = Int(rest.prefix { $0 != ":" })!
            let message = rest.drop { $0 != ":" }.dropFirst().drop { $0 == " " }
            return Expectation(line: line, text: String(message), exact: exact)
        }
    }

    @Test("the corpus is large enough")
    func corpusSize() {
        #expect(Self.files.count >= 15)
    }

    @Test("each malformed policy is refused with file:line and the reason", arguments: files)
    func refused(_ name: String) throws {
        let path = Self.folder.appendingPathComponent(name).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let expected = Self.expectations(in: text)
        try #require(!expected.isEmpty, "\(name) has no '# expect' line")
        do {
            _ = try PolicyLoader.load(path: path)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.problems.count == expected.count, "\(error.description)")
            for (problem, want) in zip(error.problems, expected) {
                #expect(problem.line == want.line, "\(name): \(problem.message)")
                if want.exact {
                    #expect(problem.message == want.text)
                } else {
                    #expect(problem.message.hasPrefix(want.text), "\(problem.message)")
                }
            }
            #expect(error.description.hasPrefix("\(path):\(expected[0].line): "))
        }
    }

    /// A browser's text box sends "\r\n" (the page's simulate), an old Mac editor a lone "\r":
    /// the same file, rewritten with those line ends, is refused with the same lines and words.
    @Test("each malformed policy keeps its lines with CRLF or CR line ends", arguments: files, ["\r\n", "\r"])
    func otherLineEnds(_ name: String, _ end: String) throws {
        let text = try String(contentsOfFile: Self.folder.appendingPathComponent(name).path, encoding: .utf8)
        let expected = Self.expectations(in: text)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("policy-line-ends-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        let rewritten = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: end)
        try #require(rewritten.utf8.filter { $0 == 10 }.count == (end == "\r\n" ? text.utf8.filter { $0 == 10 }.count : 0))
        try rewritten.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try PolicyLoader.load(path: path)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.problems.map(\.line) == expected.map(\.line), "\(error.description)")
            for (problem, want) in zip(error.problems, expected) where want.exact {
                #expect(problem.message == want.text)
            }
        }
    }
}
