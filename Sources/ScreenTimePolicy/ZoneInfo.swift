import FoundationEssentials
import Glibc
import ScreenTimeCore

/// The system's time zones: the zoneinfo files of Debian's `tzdata` under /usr/share/zoneinfo
/// (never `TZDIR` or `TZ`, which the child's session could set).
public enum ZoneInfo {
    public static let folder = "/usr/share/zoneinfo"

    /// Why a zone name was not taken.
    public enum Refusal: Error, Equatable, Sendable {
        /// No such zone (or not a name the policy takes: one with a "/", or UTC or GMT).
        case unknown
        /// The file is there but could not be read (`why` nil), or is not a zoneinfo file (`why`:
        /// what is wrong with it, in English: Zone's words).
        case unreadable(path: String, why: String?)
    }

    /// The zone of that name: "UTC" and "GMT" without a file, others from the zoneinfo folder.
    public static func zone(named name: String) -> Result<Zone, Refusal> {
        if name == "UTC" { return .success(.utc) }
        if name == "GMT" { return .success(Zone.utc.renamed("GMT")) }
        guard name.contains("/"), isName(name) else { return .failure(.unknown) }
        let path = folder + "/" + name
        // A folder of zones ("America/Argentina") is not a zone: unknown, so that the policy's
        // error suggests the zones inside it rather than a reinstall.
        if isFolder(path) { return .failure(.unknown) }
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            return .failure(access(path, F_OK) == 0 ? .unreadable(path: path, why: nil) : .unknown)
        }
        do { return .success(try Zone(identifier: name, tzif: bytes)) } catch { return .failure(.unreadable(path: path, why: error.description)) }
    }

    /// Letters, digits, "_", "-", "+" and "/" between names; nothing that leaves the folder.
    static func isName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return !name.isEmpty && name.utf8.count < 256 && parts.allSatisfy { part in
            !part.isEmpty && part.first != "." && part.utf8.allSatisfy { c in
                (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || c == 45 || c == 43 || c == 46
            }
        }
    }

    /// Every zone name the policy takes (for the suggestion after a misspelt one): the zoneinfo
    /// files in a folder ("Europe/Berlin"), without the "posix" and "right" copies.
    public static func names() -> [String] {
        var out = ["UTC", "GMT"]
        func walk(_ relative: String) {
            guard let dir = opendir(folder + "/" + relative) else { return }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard !name.hasPrefix("."), relative.isEmpty ? !["posix", "right"].contains(name) : true else { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                if isFolder(folder + "/" + path) { walk(path) } else if !relative.isEmpty, isName(path), isZoneFile(folder + "/" + path) { out.append(path) }
            }
        }
        walk("")
        return out.sorted()
    }

    private static func isFolder(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    private static func isZoneFile(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var magic = [UInt8](repeating: 0, count: 4)
        return read(fd, &magic, 4) == 4 && magic == Array("TZif".utf8)
    }
}

/// The system's time zone: the `/etc/localtime` link, else `/etc/timezone`, else UTC.
public enum SystemTimeZone {
    public static func current() -> Zone {
        if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime"),
           let r = link.firstRange(of: "zoneinfo/"), case .success(let zone) = ZoneInfo.zone(named: String(link[r.upperBound...])) {
            return zone
        }
        if let text = FileManager.default.contents(atPath: "/etc/timezone").map({ String(decoding: $0, as: UTF8.self) }),
           let word = text.split(whereSeparator: \.isWhitespace).first, case .success(let zone) = ZoneInfo.zone(named: String(word)) {
            return zone
        }
        return .utc
    }
}
