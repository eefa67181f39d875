import Foundation
import ScreenTimeLinux

/// A real PostgreSQL server (Debian's `postgresql`) for a test: a cluster made by initdb in a
/// scratch folder owned by a test user (65074, which no other test uses), run as that user on a
/// free loopback port, with password (SCRAM) logins. `stop()` ends it (a fast shutdown), and so
/// does the end of the object.
public final class PostgresCluster: @unchecked Sendable {
    public static let owner: UInt32 = TestUser.ensure(uid: 65074, name: "stpg65074")
    /// Where PostgreSQL's server programs are (`PostgreSQLPrograms`: `$PG_BIN`, or the newest
    /// Debian version installed).
    public static let bin = PostgreSQLPrograms.folder()
    public let folder: String
    public let port: Int
    public let adminPassword = "admin-" + UUID().uuidString
    public let admin = "family_admin"
    private var server: Process?

    public struct Failure: Error, CustomStringConvertible { public var description: String }

    /// Addresses the server listens on besides 127.0.0.1 (logins from 10.0.0.0/8 over TLS only).
    private let extraAddresses: [String]

    /// `listen`: more addresses to take connections on (a veth's, for a computer in a network
    /// namespace); `tls`: a certificate and its key (PEM files) for the server, which then takes
    /// connections from those addresses only over TLS.
    public init(listen: [String] = [], tls: (certificate: String, key: String)? = nil) throws {
        extraAddresses = listen
        let fm = FileManager.default
        folder = fm.temporaryDirectory.appendingPathComponent("screentime-pg-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try adminPassword.write(toFile: folder + "/pw", atomically: true, encoding: .utf8)
        try fm.setAttributes([.ownerAccountID: Self.owner, .groupOwnerAccountID: Self.owner], ofItemAtPath: folder)
        try fm.setAttributes([.ownerAccountID: Self.owner, .groupOwnerAccountID: Self.owner], ofItemAtPath: folder + "/pw")
        let initdb = try Self.asOwner(Self.bin + "/initdb", ["-D", folder + "/data", "-U", admin, "--auth=scram-sha-256", "--pwfile=" + folder + "/pw",
                                                           "--encoding=UTF8", "--locale=C.UTF-8"])
        guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb.output)") }
        if let tls {
            for (from, to) in [(tls.certificate, "server.crt"), (tls.key, "server.key")] {
                try fm.copyItem(atPath: from, toPath: folder + "/data/" + to)
                try fm.setAttributes([.ownerAccountID: Self.owner, .groupOwnerAccountID: Self.owner, .posixPermissions: 0o600], ofItemAtPath: folder + "/data/" + to)
            }
            let conf = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/data/postgresql.conf"))
            conf.seekToEndOfFile()
            conf.write(Data("ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n".utf8))
            try conf.close()
            let hba = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/data/pg_hba.conf"))
            hba.seekToEndOfFile()
            hba.write(Data("hostssl all all 10.0.0.0/8 scram-sha-256\n".utf8))
            try hba.close()
        }
        port = Self.freePort()
        try start()
    }

    /// Starts the server on the cluster (again after `pause()`), on the same port; waits until it takes connections.
    public func start() throws {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        server.arguments = ["--reuid=\(Self.owner)", "--regid=\(Self.owner)", "--clear-groups", Self.bin + "/postgres", "-D", folder + "/data",
                            "-k", folder, "-p", "\(port)", "-c", "listen_addresses=" + (["127.0.0.1"] + extraAddresses).joined(separator: ","),
                            "-c", "max_connections=300",
                            // No test cuts PostgreSQL's power: its commits need not wait for the disk, which on a
                            // machine busy with the other suites' syncs may take seconds (a household test waited
                            // 10 s for an entry in vain in CI; the likeliest of the causes its log left open).
                            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = try Self.logFile(folder + "/server.log")
        try server.run()
        self.server = server
        // 90 s at most: each look runs pg_isready (300 looks 100 ms apart, before #37).
        var ready = false
        Wait.whether(within: 90, every: 0.1) {
            ready = Self.asOwnerQuiet(Self.bin + "/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)"]) == 0
            return ready || !server.isRunning
        }
        if ready { return }
        stop()
        throw Failure(description: "PostgreSQL did not start: \((try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? "")")
    }

    /// Stops the server (a fast shutdown, waited for) and keeps the cluster, for `start()` again:
    /// the family database out of reach for a while.
    public func pause() {
        guard let server, server.isRunning else { return }
        kill(server.processIdentifier, SIGINT)
        server.waitUntilExit()
    }

    deinit { stop() }

    /// A fast shutdown (SIGINT), waited for; the folder is removed.
    public func stop() {
        pause()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs SQL as the administrator (psql), stopping at the first error.
    @discardableResult
    public func sql(_ text: String, database: String = "postgres") throws -> String {
        let r = try Self.run("/usr/bin/env", ["PGPASSWORD=\(adminPassword)", "/usr/bin/psql", "-h", "127.0.0.1", "-p", "\(port)", "-U", admin,
                                              "-d", database, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-A", "-t", "-c", text])
        guard r.status == 0 else { throw Failure(description: "psql: \(r.output)") }
        return r.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func logFile(_ path: String) throws -> FileHandle {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// A port nothing listens on now (the kernel's choice for port 0).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func asOwner(_ tool: String, _ args: [String]) throws -> (status: Int32, output: String) {
        try run("/usr/bin/setpriv", ["--reuid=\(owner)", "--regid=\(owner)", "--clear-groups", tool] + args)
    }

    static func asOwnerQuiet(_ tool: String, _ args: [String]) -> Int32 { (try? asOwner(tool, args).status) ?? -1 }

    /// Runs `tool` and waits; its status and output (stdout and stderr together).
    public static func run(_ tool: String, _ args: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: "/")
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
