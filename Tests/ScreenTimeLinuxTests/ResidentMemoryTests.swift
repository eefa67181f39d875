import Foundation
import Glibc
import TestSupport
import Testing
@testable import ScreenTimeLinux

@Suite("Resident memory: program pages let go of, nothing lost", .ownThread)
struct ResidentMemoryTests {
    /// A file of `pages` pages, each filled with its own number, mapped privately.
    func mappedFile(pages: Int, writable: Bool) throws -> (UnsafeMutablePointer<UInt8>, Int, () -> Void) {
        let size = pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("resident-\(getpid())-\(UUID().uuidString)").path
        var bytes = [UInt8](repeating: 0, count: size)
        for i in 0..<size { bytes[i] = UInt8(truncatingIfNeeded: i / Int(sysconf(Int32(_SC_PAGESIZE)))) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd); unlink(path) }
        let p = mmap(nil, size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_PRIVATE, fd, 0)
        try #require(p != MAP_FAILED)
        return (p!.assumingMemoryBound(to: UInt8.self), size, { munmap(p, size) })
    }

    /// How many of the pages at `p` (`size` bytes) this process has mapped now: /proc/self/pagemap's
    /// "present" bit, page by page. Unlike the resident set, other tests running beside this one
    /// (Swift Testing runs suites in parallel) cannot move it.
    func presentPages(_ p: UnsafeMutablePointer<UInt8>, _ size: Int) throws -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let fd = open("/proc/self/pagemap", O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var entries = [UInt64](repeating: 0, count: size / page)
        let want = entries.count * 8
        let got = entries.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(Int(bitPattern: p) / page * 8)) }
        try #require(got == want)
        return entries.filter { $0 & (1 << 63) != 0 }.count
    }

    @Test("a read-only file's pages leave the process's page tables and read back the same")
    func readOnlyPagesGo() throws {
        let (p, size, unmap) = try mappedFile(pages: 512, writable: false)
        defer { unmap() }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var sum = 0
        for i in stride(from: 0, to: size, by: page) { sum += Int(p[i]) }   // every page mapped
        #expect(try presentPages(p, size) == 512)
        let released = ResidentMemory.releaseFilePages()
        #expect(released.bytes >= size, "the 2 MiB mapping (and the test program's code) let go of")
        #expect(try presentPages(p, size) == 0, "no page of the mapping is mapped after")
        var again = 0
        for i in stride(from: 0, to: size, by: page) { again += Int(p[i]) }
        #expect(again == sum)
        #expect(p[5 * page] == 5 && p[300 * page + 7] == UInt8(300 % 256))
        #expect(try presentPages(p, size) == 512, "read again, every page is mapped again")
    }

    @Test("a page the process wrote in a private file mapping keeps what was written")
    func writtenPagesStay() throws {
        let (p, size, unmap) = try mappedFile(pages: 64, writable: true)
        defer { unmap() }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        for i in stride(from: 0, to: size, by: page) { _ = p[i] }
        p[3 * page] = 0xAB; p[40 * page + 1] = 0xCD
        _ = ResidentMemory.releaseFilePages()
        #expect(p[3 * page] == 0xAB && p[40 * page + 1] == 0xCD, "written bytes survive")
        #expect(p[3 * page + 1] == 3 && p[41 * page] == 41, "unwritten bytes are still the file's")
    }

    @Test("the program's .rodata is found inside a mapping of the program's own file")
    func constantDataFound() throws {
        let range = try #require(ResidentMemory.constantData)
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        // Read to the end as the daemon reads /proc: Foundation's String(contentsOfFile:) stops at
        // its first read of a /proc file (4 KiB), and under the thread sanitizer, whose shadow
        // mappings come first, the program's lines are further down.
        let maps = String(decoding: try #require(ProcFS.contents(of: "/proc/self/maps")), as: UTF8.self)
        let inside = maps.split(separator: "\n").contains { line in
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count >= 6, String(f[5]) == program else { return false }
            let b = f[0].split(separator: "-").compactMap { Int($0, radix: 16) }
            return b.count == 2 && b[0] <= range.lowerBound && range.upperBound <= b[1]
        }
        #expect(inside, "\(range) in no mapping of \(program)")
        #expect(range.count >= 4096 && range.lowerBound % 4096 == 0)
    }
}
