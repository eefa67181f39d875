import Foundation
import Testing

/// A folder of message catalogs compiled by the real msgfmt from `po` (language → .po text), as
/// `<folder>/<language>/LC_MESSAGES/screentime.mo`: what `Translator.forLanguages(_:folder:)` reads.
/// The caller removes the folder.
public func compiledCatalogs(_ po: [String: String]) throws -> String {
    let folder = NSTemporaryDirectory() + "screentime-words-\(UUID().uuidString)"
    for (language, text) in po {
        let dir = "\(folder)/\(language)/LC_MESSAGES"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try text.write(toFile: dir + "/screentime.po", atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/msgfmt")
        p.arguments = ["--check", "-o", dir + "/screentime.mo", dir + "/screentime.po"]
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "msgfmt refused the \(language) catalog")
    }
    return folder
}
