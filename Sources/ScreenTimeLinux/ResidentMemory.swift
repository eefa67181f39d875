import CShims
import Glibc

/// What the daemon keeps resident, brought down to what it uses (docs/benchmarks.md, "Memory").
///
/// A program's resident set counts every page of a mapped file that its page tables point at, and
/// the kernel maps pages in 64 KiB at a time around each one touched: starting up (the policy
/// loader, the database's opening and migrations, the first look at every process) leaves most
/// of the program's code mapped, though none of it runs again. `releaseFilePages` unmaps, from
/// this process's page tables only, the pages of files it maps privately and read-only: code
/// and read-only data of the program and its libraries (MADV_DONTNEED). Nothing is lost: the
/// file's contents stay in the page cache, and a page used again is mapped again from it. Pages
/// the loader wrote before making them read-only (relocated data: anonymous copies) are left,
/// page by page, as /proc/self/pagemap tells them apart. In a writable mapping a thread could
/// write a page between that look and the unmapping, and MADV_DONTNEED would lose the write:
/// there the clean file pages are only offered for reclaim (MADV_PAGEOUT), which never loses
/// data, and which the kernel honours only for a file the process owns (system mode: root).
/// One writable range is an exception: the program's `.rodata`, constants (ICU's data among
/// them) that the linker made writable only because Swift's objects put relocated constants
/// there; the loader writes those before the program starts, and nothing after, so its clean
/// pages are unmapped like read-only ones.
public enum ResidentMemory {
    public struct Released: Sendable, Equatable {
        /// Pages unmapped, in bytes; the mappings they were in.
        public let bytes: Int
        public let mappings: Int
    }

    /// The resident set now, from /proc/self/statm (bytes).
    public static func residentBytes() -> Int {
        guard let text = ProcFS.contents(of: "/proc/self/statm").map({ String(decoding: $0, as: UTF8.self) }) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * pageSize : 0
    }

    /// Lets go of the process's clean pages of privately mapped files (above), and gives the C
    /// allocator's free memory back to the system. Returns what was unmapped or offered.
    public static func releaseFilePages() -> Released {
        // First: what the allocator's trim touches (its first call looks up symbols) is let go of below.
        _ = screentime_malloc_trim()
        guard let maps = ProcFS.contents(of: "/proc/self/maps") else { return Released(bytes: 0, mappings: 0) }
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard pagemap >= 0 else { return Released(bytes: 0, mappings: 0) }
        defer { close(pagemap) }
        var released = 0, mappings = 0
        var entries = [UInt64]()
        let constants = constantData
        for line in String(decoding: maps, as: UTF8.self).split(separator: "\n") {
            guard let m = Mapping(line), m.isPrivateFile else { continue }
            let pages = (m.end - m.start) / pageSize
            entries = [UInt64](repeating: 0, count: pages)
            let want = pages * 8
            let got = entries.withUnsafeMutableBytes { pread(pagemap, $0.baseAddress, want, off_t(m.start / pageSize * 8)) }
            guard got == want else { continue }
            // Runs of pages that are present and still the file's own (bit 63: present; bit 61:
            // a file page, not an anonymous copy the process wrote).
            var runStart: Int? = nil
            let before = released
            for i in 0...pages {
                let clean = i < pages && entries[i] & (1 << 63) != 0 && entries[i] & (1 << 61) != 0
                if clean, runStart == nil { runStart = i }
                if !clean, let s = runStart {
                    let run = m.start + s * pageSize ..< m.start + i * pageSize
                    if !m.writable {
                        released += advise(run, MADV_DONTNEED)
                    } else {
                        // The part in .rodata unmapped; the rest offered for reclaim.
                        let lo = max(run.lowerBound, constants?.lowerBound ?? run.upperBound)
                        let hi = min(run.upperBound, constants?.upperBound ?? run.upperBound)
                        if lo < hi {
                            released += advise(lo..<hi, MADV_DONTNEED)
                            released += advise(run.lowerBound..<lo, MADV_PAGEOUT) + advise(hi..<run.upperBound, MADV_PAGEOUT)
                        } else {
                            released += advise(run, MADV_PAGEOUT)
                        }
                    }
                    runStart = nil
                }
            }
            if released > before { mappings += 1 }
        }
        return Released(bytes: released, mappings: mappings)
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// madvise on the addresses `range`; the bytes it took (0 for none, or when it failed).
    private static func advise(_ range: Range<Int>, _ advice: Int32) -> Int {
        guard !range.isEmpty else { return 0 }
        return madvise(UnsafeMutableRawPointer(bitPattern: range.lowerBound), range.count, advice) == 0 ? range.count : 0
    }

    /// Where the program's `.rodata` is in memory, whole pages only: its section header in
    /// /proc/self/exe (the headers only are read), moved by where the file's first page is
    /// mapped. Nil when unsure. Found once: the program does not move.
    static let constantData: Range<Int>? = {
        let fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        func bytes(_ at: Int, _ count: Int) -> [UInt8] {
            guard at >= 0, count > 0, count < 1 << 20 else { return [] }
            var out = [UInt8](repeating: 0, count: count)
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(at)) }
            return n == count ? out : []
        }
        func u(_ b: [UInt8], _ at: Int, _ size: Int) -> Int {
            guard at >= 0, at + size <= b.count else { return -1 }
            var v = 0
            for k in (0..<size).reversed() { v = v << 8 | Int(b[at + k]) }
            return v
        }
        let header = bytes(0, 64)
        guard header.count == 64, header[0] == 0x7f, header[1] == UInt8(ascii: "E"), header[4] == 2 /* 64-bit */,
              header[5] == 1 /* little-endian */ else { return nil }
        // The first loadable segment: at file offset 0, its address (0 for a position-independent program).
        let phentsize = u(header, 0x36, 2), phnum = u(header, 0x38, 2)
        let ph = bytes(u(header, 0x20, 8), phentsize * phnum)
        guard phentsize >= 56, let load = (0..<phnum).map({ $0 * phentsize }).first(where: { u(ph, $0, 4) == 1 /* PT_LOAD */ }),
              u(ph, load + 8, 8) == 0 else { return nil }
        let firstAddress = u(ph, load + 16, 8)
        // The section named .rodata.
        let shentsize = u(header, 0x3A, 2), shnum = u(header, 0x3C, 2), shstrndx = u(header, 0x3E, 2)
        let sh = bytes(u(header, 0x28, 8), shentsize * shnum)
        guard shentsize >= 64, shstrndx < shnum, !sh.isEmpty else { return nil }
        let names = bytes(u(sh, shstrndx * shentsize + 0x18, 8), u(sh, shstrndx * shentsize + 0x20, 8))
        let wanted = Array(".rodata\0".utf8)
        guard let rodata = (0..<shnum).map({ $0 * shentsize }).first(where: { h in
            let at = u(sh, h, 4)
            return at >= 0 && at + wanted.count <= names.count && Array(names[at..<at + wanted.count]) == wanted
        }) else { return nil }
        let address = u(sh, rodata + 0x10, 8), size = u(sh, rodata + 0x20, 8)
        // Where the file's first page is mapped.
        let program = String(decoding: readLink("/proc/self/exe"), as: UTF8.self)
        guard !program.isEmpty, let maps = ProcFS.contents(of: "/proc/self/maps"),
              let line = String(decoding: maps, as: UTF8.self).split(separator: "\n").first(where: {
                  let f = $0.split(separator: " ", omittingEmptySubsequences: true)
                  return f.count >= 6 && Int(f[2], radix: 16) == 0 && f[5] == program
              }), let base = Int(line.prefix { $0 != "-" }, radix: 16) else { return nil }
        let start = base - firstAddress + address, end = start + size
        let first = (start + pageSize - 1) / pageSize * pageSize, last = end / pageSize * pageSize
        return first < last ? first..<last : nil
    }()

    private static func readLink(_ path: String) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count)
        return n > 0 ? Array(buffer[..<n]) : []
    }

    /// A line of /proc/self/maps: `start-end perms offset dev inode path`.
    private struct Mapping {
        let start: Int, end: Int
        let isPrivateFile: Bool, writable: Bool

        init?(_ line: Substring) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5 else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let s = Int(range[0], radix: 16), let e = Int(range[1], radix: 16), e > s else { return nil }
            start = s; end = e
            let perms = Array(fields[1].utf8)
            let path = fields.count > 5 ? fields[5].drop { $0 == " " } : ""
            isPrivateFile = perms.count == 4 && perms[3] == UInt8(ascii: "p") && fields[4] != "0" && path.hasPrefix("/")
            writable = perms.count == 4 && perms[1] == UInt8(ascii: "w")

        }
    }
}
