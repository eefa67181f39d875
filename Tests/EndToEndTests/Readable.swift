import Foundation

/// The files of this clone that the tests' other uids run or read (the binaries, the demo day, the
/// scripts), copied once per test run into a folder every uid can enter. The clone may sit in a
/// folder only root can enter (/root, or a Debian 12 home, is 0700): from there, a process of a
/// test user could neither run `.build/debug/screentimed` nor read `policies/demo-day.jsonl`.
enum Readable {
    static let files = [".build/debug/screentimed", ".build/debug/stctl", ".build/debug/screentime-hook-x11", ".build/debug/screentime-web",
                        ".build/debug/screentime-household", ".build/debug/screentime-browser-host",
                        "policies/demo-day.jsonl", "policies/default.toml",
                        "Tests/EndToEndTests/Scripts/fuzz-socket.py", "Tests/EndToEndTests/Scripts/disk-full.sh"]

    /// A folder of root's, 0755, made anew for this run (named after this process; removed by the
    /// system's /tmp cleaning, as the tests' other folders are).
    static let folder: String = {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("screentime-readable-\(getpid())").path
        try? fm.removeItem(atPath: dir)
        for file in files {
            let to = dir + "/" + file
            try? fm.createDirectory(atPath: (to as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                    attributes: [.posixPermissions: 0o755])
            // copyItem keeps the mode: executables stay executable, the rest readable by all.
            try? fm.copyItem(atPath: ReplayBinaryTests.root.appendingPathComponent(file).path, toPath: to)
        }
        var parent = dir
        while parent != fm.temporaryDirectory.path, parent.count > 1 {
            try? fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: parent)
            parent = (parent as NSString).deletingLastPathComponent
        }
        return dir
    }()

    /// The copy of `file` (a path in the clone, one of `files`).
    static func path(_ file: String) -> String {
        precondition(files.contains(file), "\(file) is not among Readable.files")
        return folder + "/" + file
    }
}
