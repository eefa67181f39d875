import Foundation
import Testing

/// The project stands on its own (issue #37): what the architecture document says of the code
/// is checked against the code, so that it cannot silently go stale.
@Suite("The repository")
struct RepositoryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ path: String) throws -> String { try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) }

    /// Every Swift file under `folder`, relative to the root.
    static func swiftFiles(under folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        let all = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        return all.filter { $0.hasSuffix(".swift") && !$0.hasPrefix(".build") }.map { folder + "/" + $0 }.sorted()
    }

    /// The names of the targets Package.swift declares (not its test targets).
    static func targets() throws -> [String] {
        let package = try text("Package.swift")
        let pattern = try Regex(#"\.(target|executableTarget|systemLibrary|plugin)\(name: "([^"]+)""#)
        return package.matches(of: pattern).compactMap { $0.output[2].substring.map(String.init) }
    }

    @Test("docs/architecture.md names every target of Package.swift")
    func layoutNamesEveryTarget() throws {
        let targets = try Self.targets()
        #expect(targets.count >= 20, "\(targets)")
        let architecture = try Self.text("docs/architecture.md")
        for target in targets {
            #expect(architecture.contains(target), "\(target) is a target of Package.swift that docs/architecture.md does not name")
        }
    }

    @Test("every document the code cites is in the repository")
    func citedDocumentsExist() throws {
        let pattern = try Regex(#"(?:^|[^A-Za-z0-9_./-])((?:docs|\.\./shared|spec)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)"#)
        var cited = 0
        for file in Self.swiftFiles(under: "Sources") + Self.swiftFiles(under: "Tests") {
            for match in try Self.text(file).matches(of: pattern) {
                let path = String(match.output[1].substring ?? "")
                cited += 1
                #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path), "\(file) cites \(path), which is not in the repository")
            }
        }
        #expect(cited > 50)
    }

    @Test("the engine imports no C library and no Foundation beyond FoundationEssentials")
    func coreIsPure() throws {
        let files = Self.swiftFiles(under: "Sources/ScreenTimeCore")
        #expect(files.count > 20)
        for file in files {
            for line in try Self.text(file).split(separator: "\n") where line.hasPrefix("import ") {
                #expect(["import FoundationEssentials", "import Synchronization"].contains(String(line)), "\(file): \(line)")
            }
        }
    }

    @Test("the test faults are read only in debug builds (#if TEST_FAULTS)")
    func faultsOnlyInTestBuilds() throws {
        var found = 0
        for file in Self.swiftFiles(under: "Sources") {
            var inFaults = false
            for line in try Self.text(file).split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("#if TEST_FAULTS") { inFaults = true }
                if trimmed.hasPrefix("#else") || trimmed.hasPrefix("#endif") { inFaults = false }
                if line.contains("environment[\"SCREENTIME_TEST_") {
                    found += 1
                    #expect(inFaults, "\(file): \(trimmed)")
                }
            }
        }
        #expect(found >= 2)
    }
}
