import Foundation
import ScreenTimeLinux
import Testing

/// A policy file replaced at once (issue 40's edits): mode and owner kept, a link followed.
@Suite("Replacing a file at once")
struct FileReplacementTests {
    @Test("the text replaced, the mode kept, no file left beside it; through a link, the file it names is replaced and the link stays")
    func replace() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("screentime-replace-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: dir) }
        let file = dir + "/family.toml", link = dir + "/tom.toml"
        try "version = 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file)
        try fm.createSymbolicLink(atPath: link, withDestinationPath: "family.toml")

        try FileReplacement.replace(link, with: "version = 1\n# changed\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "version = 1\n# changed\n")
        #expect(try fm.destinationOfSymbolicLink(atPath: link) == "family.toml")
        #expect((try fm.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o640)
        #expect(try fm.contentsOfDirectory(atPath: dir).sorted() == ["family.toml", "tom.toml"])
        #expect(throws: FileReplacement.Failure.self) { try FileReplacement.replace(dir + "/none.toml", with: "x") }
    }
}
