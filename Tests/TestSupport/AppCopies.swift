import Foundation

/// Copies of `sleep` under the names of apps (gcompris-qt, supertuxkart, mystery), so that real
/// processes show those exe paths. The folder is root's (trusted), or writable by everyone (`open`).
public enum AppCopies {
    public static func folder(open: Bool = false) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-apps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: open ? 0o777 : 0o755])
        for name in ["gcompris-qt", "supertuxkart", "mystery"] {
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: "\(dir)/\(name)")
        }
        return dir
    }
}
