import Foundation
import ScreenTimeLinux
import ScreenTimeStore

/// Where system mode finds its children and keeps their state (docs/architecture.md §1).
enum SystemPaths {
    static let policyDir = "/etc/screentime"
    static let stateRoot = "/var/lib/screentime"

    /// The children: each `USER.toml` in `policyDir` whose USER is a user of this machine (not
    /// root), in name order; and a sentence for each file that names no child.
    static func children(policyDir: String) -> (children: [(account: UserAccount, policy: String)], problems: [String]) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: policyDir)) ?? []).filter { $0.hasSuffix(".toml") }.sorted()
        var children: [(UserAccount, String)] = []
        var problems: [String] = []
        for file in names {
            let user = String(file.dropLast(5))
            guard let account = UserAccount.lookup(name: user) else {
                problems.append("\(policyDir)/\(file): there is no user \(user) on this machine, so no child is watched for it")
                continue
            }
            guard account.uid != 0 else {
                problems.append("\(policyDir)/\(file): root cannot be a child; the file is not used")
                continue
            }
            children.append((account, "\(policyDir)/\(file)"))
        }
        return (children, problems)
    }

    /// Makes a missing folder with `mode`. An existing one is left as it is: `--socket` or
    /// `--state-dir` may name a folder that is not only ours (systemd makes the default ones with
    /// their modes, and each child's state folder is made 0700).
    static func makeFolder(_ path: String, mode: Int) throws {
        let fm = FileManager.default
        do {
            if !fm.fileExists(atPath: path) {
                try fm.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
            }
        } catch {
            throw StoreError(description: "\(path): cannot make the folder: \(error.localizedDescription)")
        }
    }
}
