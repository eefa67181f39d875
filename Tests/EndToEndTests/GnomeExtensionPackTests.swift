import Foundation
import TestSupport
import Testing

/// tools/pack-gnome-extension's two forms, loaded by the real GJS (Debian's gjs, the engine inside
/// GNOME Shell): the legacy one as GNOME 43–44 imports it, the ES-module one as 45 and later do.
/// (Only 43 runs whole, in GnomeShellTests: Debian 12 has no GNOME Shell 45.)
@Suite("GNOME: the extension packed for 43 and for 45+", .ownThread)
struct GnomeExtensionPackTests {
    static func pack(_ major: String) throws -> String {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-pack-\(UUID().uuidString)").path
        let r = try ReplayBinaryTests.runBinary(ReplayBinaryTests.root.appendingPathComponent("tools/pack-gnome-extension").path, [major, out])
        try #require(r.status == 0, "\(r.stderr)")
        return out + "/screentime@screentime"
    }

    static func metadata(_ folder: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/metadata.json"))) as? [String: Any])
    }

    @Test("43: a legacy module whose createScreenTime GNOME Shell finds, with the indicator's words")
    func legacy() throws {
        let folder = try Self.pack("43")
        let meta = try Self.metadata(folder)
        #expect(meta["uuid"] as? String == "screentime@screentime")
        #expect(meta["shell-version"] as? [String] == ["43", "44"])
        #expect(meta["session-modes"] as? [String] == ["user", "unlock-dialog"])
        let script = """
            imports.searchPath.unshift('\(folder)');
            const core = imports.core;
            print(typeof core.createScreenTime);
            for (const s of [0, 1, 59, 60, 420, 3599, 3600, 3700, 7200])
                print(core.gameTimeWords(s));
            """
        let r = try ReplayBinaryTests.runBinary("/usr/bin/gjs", ["-c", script])
        #expect(r.stdout.split(separator: "\n") == ["function", "no game time", "1 s", "59 s", "1 min", "7 min", "59 min", "1 h", "1 h 1 min", "2 h"],
                "\(r.stdout)\(r.stderr)")
    }

    @Test("45+: an ES module exporting createScreenTime, and an entry point that fails only for want of GNOME Shell's own modules")
    func module() throws {
        let folder = try Self.pack("45")
        #expect(try Self.metadata(folder)["shell-version"] as? [String] == ["45", "46", "47", "48", "49"])
        try "import {createScreenTime} from './core.js';\nprint(typeof createScreenTime);\n"
            .write(toFile: folder + "/check.js", atomically: true, encoding: .utf8)
        let core = try ReplayBinaryTests.runBinary("/usr/bin/gjs", ["-m", folder + "/check.js"])
        #expect(core.stdout == "function\n", "\(core.stdout)\(core.stderr)")
        // Parsed whole: what stops it is the first import of GNOME Shell's, which only the shell has.
        let entry = try ReplayBinaryTests.runBinary("/usr/bin/gjs", ["-m", folder + "/extension.js"])
        #expect(entry.stderr.contains("ImportError: Unable to load file from: resource:///org/gnome/shell/"), "\(entry.stderr)")
        #expect(!entry.stderr.contains("SyntaxError"), "\(entry.stderr)")
    }
}
