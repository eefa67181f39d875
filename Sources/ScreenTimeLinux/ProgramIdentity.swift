#if canImport(Glibc)
import Glibc
#endif

/// A file as the kernel names it: device and inode, with what shows a change in place (size,
/// change time), its owner and mode. Each C call wrapped once here.
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var changed: Int64
    public var owner: UInt32
    public var mode: UInt32

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        changed = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        owner = st.st_uid
        mode = st.st_mode
    }

    /// The same file (device and inode), whatever its name.
    func isSameFile(as other: FileIdentity) -> Bool { device == other.device && inode == other.inode }

    public static func of(fd: Int32) -> FileIdentity? {
        var st = stat()
        return fstat(fd, &st) == 0 ? FileIdentity(st) : nil
    }

    /// Of the path itself (a symbolic link is not followed).
    static func of(at dir: Int32, _ name: String) -> FileIdentity? {
        var st = stat()
        return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? FileIdentity(st) : nil
    }

    public static func of(path: String) -> FileIdentity? {
        var st = stat()
        return fstatat(AT_FDCWD, path, &st, 0) == 0 ? FileIdentity(st) : nil
    }

    var isRegular: Bool { mode & S_IFMT == S_IFREG }
    var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
    /// Root's, and nobody else may write it.
    var isRootsAlone: Bool { owner == 0 && mode & 0o022 == 0 }
}

/// The GNU build-id of an ELF file: the linker's hash of the program, kept when the file is
/// renamed, copied, stripped or has bytes appended. 64-bit little-endian ELF (x86-64, arm64).
enum ELFBuildID {
    static func read(fd: Int32) -> [UInt8]? {
        var header = [UInt8](repeating: 0, count: 64)
        guard pread(fd, &header, 64, 0) == 64, header[0..<4] == [0x7f, 0x45, 0x4c, 0x46], header[4] == 2, header[5] == 1 else { return nil }
        func u16(_ b: [UInt8], _ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 }
        func u32(_ b: [UInt8], _ o: Int) -> Int { u16(b, o) | u16(b, o + 2) << 16 }
        func u64(_ b: [UInt8], _ o: Int) -> Int { u32(b, o) | u32(b, o + 4) << 32 }
        let phoff = u64(header, 32), phentsize = u16(header, 54), phnum = u16(header, 56)
        guard phentsize >= 56, phnum > 0, phnum < 256, phoff > 0, phoff < 1 << 30 else { return nil }
        var table = [UInt8](repeating: 0, count: phentsize * phnum)
        guard pread(fd, &table, table.count, off_t(phoff)) == table.count else { return nil }
        for k in 0..<phnum {
            let entry = k * phentsize
            guard u32(table, entry) == 4 /* PT_NOTE */ else { continue }
            let offset = u64(table, entry + 8), size = u64(table, entry + 32)
            guard size > 12, size <= 1 << 16, offset < 1 << 40 else { continue }
            var notes = [UInt8](repeating: 0, count: size)
            guard pread(fd, &notes, size, off_t(offset)) == size else { continue }
            var at = 0
            while at + 12 <= size {
                let nameSize = u32(notes, at), descSize = u32(notes, at + 4), type = u32(notes, at + 8)
                let name = at + 12, desc = name + (nameSize + 3) & ~3
                let next = desc + (descSize + 3) & ~3
                guard nameSize < 256, descSize < 1024, desc + descSize <= size else { break }
                if type == 3 /* NT_GNU_BUILD_ID */, nameSize == 4, notes[name..<name + 4] == [0x47, 0x4e, 0x55, 0], descSize >= 8 {
                    return Array(notes[desc..<desc + descSize])
                }
                at = next
            }
        }
        return nil
    }
}

/// The programs a policy names by path, recognised by what they are however they are started: a
/// renamed copy, a start through the dynamic loader, a program run from a memfd. A file is the
/// named program when it is the same file, or an ELF file with the same build-id. What each file
/// met is, is kept per device, inode, size and change time: a file is looked into once.
public final class KnownPrograms {
    private struct Known {
        var path: String
        var file: FileIdentity
        var buildID: [UInt8]?
    }
    private let known: [Known]
    private var byBuildID: [[UInt8]: String] = [:]
    private var seen: [FileIdentity: String] = [:]
    private var seenNothing: Set<FileIdentity> = []
    static let remembered = 4096

    /// `paths`: the literal exe paths of the policies' apps (globs are left out: they name places, not programs).
    public init(paths: [String]) {
        var known: [Known] = []
        for path in Set(paths).sorted() {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard let file = FileIdentity.of(fd: fd), file.isRegular else { continue }
            known.append(Known(path: path, file: file, buildID: ELFBuildID.read(fd: fd)))
        }
        self.known = known
        for k in known { if let id = k.buildID, byBuildID[id] == nil { byBuildID[id] = k.path } }
    }

    public var isEmpty: Bool { known.isEmpty }

    /// The named program the open file `fd` is, or nil.
    public func program(openFile fd: Int32) -> String? {
        guard !known.isEmpty, let file = FileIdentity.of(fd: fd) else { return nil }
        return program(file) { ELFBuildID.read(fd: fd) }
    }

    /// The named program `file` is; `buildID` reads its build-id when needed.
    func program(_ file: FileIdentity, buildID: () -> [UInt8]?) -> String? {
        if let k = known.first(where: { $0.file.isSameFile(as: file) }) { return k.path }
        if let path = seen[file] { return path }
        if seenNothing.contains(file) { return nil }
        let found = buildID().flatMap { byBuildID[$0] }
        if seen.count + seenNothing.count >= Self.remembered { seen.removeAll(); seenNothing.removeAll() }
        if let found { seen[file] = found } else { seenNothing.insert(file) }
        return found
    }

    /// The named program a file mapped into a process is (`path` as /proc/PID/maps shows it; it
    /// must still be the file mapped, by device and inode).
    func program(mappedFile path: String, device: UInt64, inode: UInt64) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let file = FileIdentity.of(fd: fd), file.device == device, file.inode == inode else { return nil }
        return program(file) { ELFBuildID.read(fd: fd) }
    }

    /// Whether any named program is this very file (device and inode), as a mapping in
    /// /proc/PID/maps names it.
    func program(device: UInt64, inode: UInt64) -> String? {
        known.first { $0.file.device == device && $0.file.inode == inode }?.path
    }
}

/// The Flatpak apps installed system-wide (`/var/lib/flatpak`): a process is a Flatpak app only
/// when the program it runs is one of that app's files there, all root's. The cgroup scope's name
/// (`app-flatpak-ID-N.scope`) is the child's to choose (`systemd-run --user --scope --unit=…`), so
/// it only says which app to check.
public final class FlatpakApps {
    public let root: String
    private struct Files {
        var at: Int64
        var files: Set<[UInt64]>
    }
    private var apps: [String: Files] = [:]
    /// An app's files are looked up again after this long when a program is not among them (an update).
    static let refreshAfter: Int64 = 30_000_000
    static let mostFiles = 200_000

    public init(root: String = "/var/lib/flatpak") { self.root = root }

    /// Whether `file` is one of the Flatpak `id`'s files in this installation.
    public func runs(_ id: String, file: FileIdentity) -> Bool {
        guard !id.isEmpty, !id.contains("/"), !id.hasPrefix(".") else { return false }
        let key = [file.device, file.inode]
        let now = SystemClock.monotonicMicros()
        if let known = apps[id], known.files.contains(key) || now - known.at < Self.refreshAfter { return known.files.contains(key) }
        var files = Set<[UInt64]>()
        if let top = FileIdentity.of(path: root), top.isDirectory, top.isRootsAlone {
            collect(root + "/app/" + id, into: &files)
        }
        if apps.count > 256 { apps.removeAll() }
        apps[id] = Files(at: now, files: files)
        return files.contains(key)
    }

    /// The root-owned regular files under `path` (folders root's alone, links not followed).
    private func collect(_ path: String, into files: inout Set<[UInt64]>) {
        guard files.count < Self.mostFiles, let dir = opendir(path) else { return }
        defer { closedir(dir) }
        let fd = dirfd(dir)
        guard let me = FileIdentity.of(fd: fd), me.isRootsAlone else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != "..", let f = FileIdentity.of(at: fd, name) else { continue }
            if f.isDirectory {
                collect(path + "/" + name, into: &files)
            } else if f.isRegular, f.owner == 0, f.mode & 0o111 != 0 {
                files.insert([f.device, f.inode])
            }
        }
    }
}
