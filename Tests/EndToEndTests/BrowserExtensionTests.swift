import Foundation
import TestSupport
import Testing

/// The browser extension's own logic (desktop/browser/core.js) in a real JavaScript engine (Debian's
/// gjs, as the GNOME extension's core is checked), and its manifest. The extension in a real
/// Chromium and Firefox ESR, with the native messaging host and the daemon: BrowserSiteTests.
@Suite("The browser extension", .ownThread)
struct BrowserExtensionTests {
    static let folder = ReplayBinaryTests.root.appendingPathComponent("desktop/browser")

    @Test("core.js: hosts only, the focused window's tab and the audible ones, the tabs to stop, the child's words")
    func core() throws {
        let script = ReplayBinaryTests.root.appendingPathComponent("Tests/EndToEndTests/Scripts/browser-core-check.js").path
        // Its words in each language, as tools/pack-browser-extension packs them.
        let words = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-browser-words-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: words) }
        let compiled = try ReplayBinaryTests.runBinary(ReplayBinaryTests.root.appendingPathComponent("tools/messages").path, ["compile-browser", words])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let r = try ReplayBinaryTests.runBinary("/usr/bin/gjs", [script, Self.folder.appendingPathComponent("core.js").path, words + "/_locales"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "ok\n")
    }

    @Test("the manifest: Manifest V3, the two permissions it needs, and every file it names is there")
    func manifest() throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent("manifest.json"))
        let m = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(m["manifest_version"] as? Int == 3)
        #expect(Set(m["permissions"] as? [String] ?? []) == ["tabs", "nativeMessaging"])
        let background = try #require(m["background"] as? [String: Any])
        let files = [background["service_worker"] as? String].compactMap { $0 } + (background["scripts"] as? [String] ?? []) + ["stopped.html", "stopped.js", "stopped.css"]
        for f in files { #expect(FileManager.default.fileExists(atPath: Self.folder.appendingPathComponent(f).path), "\(f)") }
        // Its words: the browser's own i18n, English by default, every message its page names there.
        #expect(m["default_locale"] as? String == "en")
        #expect(m["description"] as? String == "__MSG_extensionDescription__")
        let english = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.folder.appendingPathComponent("_locales/en/messages.json"))) as? [String: Any])
        let page = try String(contentsOf: Self.folder.appendingPathComponent("stopped.html"), encoding: .utf8)
        let named = page.matches(of: /data-words="([A-Za-z]+)"/).map { String($0.1) }
        #expect(named.count == 7)
        for name in named + ["extensionDescription", "notNowSite", "thisSite", "blocked", "noGameTime", "asked", "askFailed"] {
            #expect(english[name] != nil, "\(name)")
        }
        let gecko = (m["browser_specific_settings"] as? [String: Any])?["gecko"] as? [String: Any]
        #expect(gecko?["id"] as? String == "browser@screentime")
    }
}
