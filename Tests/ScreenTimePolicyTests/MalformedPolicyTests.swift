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
}
