import ArgumentParser
import Foundation
import ScreenTimeLinux
import ScreenTimeStore

/// Where a child's state lives (docs/architecture.md §1): `--state-dir`, else `$XDG_STATE_HOME/screentime`,
/// else `~/.local/state/screentime`.
struct StateOptions: ParsableArguments {
    @Option(name: .long, help: "The folder of the child's state (default: $XDG_STATE_HOME/screentime); with --system, the folder of each child's folder (default: /var/lib/screentime).")
    var stateDir: String?

    var folder: String {
        if let stateDir { return stateDir }
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg + "/screentime" }
        return (env["HOME"] ?? NSHomeDirectory()) + "/.local/state/screentime"
    }

    var databasePath: String { folder + "/screentime.sqlite" }

    /// Opens the store, creating the folder (0700) when `create` is set; only to read with `readOnly`.
    func open(create: Bool, readOnly: Bool = false) throws -> Store {
        let fm = FileManager.default
        if !fm.fileExists(atPath: databasePath) {
            guard create else { throw StoreError(description: "\(databasePath): no state here yet (wrong --state-dir?)") }
            do {
                try fm.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError(description: "\(folder): cannot create the state folder: \(error.localizedDescription)")
            }
        }
        return try Store(path: databasePath, readOnly: readOnly)
    }
}

extension StateOptions {
    /// One writer per state folder: the daemon, or `import`, holds this while it writes.
    func lockForWriting() throws -> FileLock {
        do { return try FileLock(path: folder + "/screentimed.lock") } catch { throw fail("screentimed: \(error.description)", code: 1) }
    }
}

/// Prints a message for a person on stderr and exits with `code`.
func fail(_ message: String, code: Int32) -> ExitCode {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    return ExitCode(code)
}
