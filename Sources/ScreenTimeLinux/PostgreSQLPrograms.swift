import FoundationEssentials

/// Where this machine's PostgreSQL server programs are (initdb, postgres, pg_isready), for what
/// runs a cluster of its own: the tests and `make bench`. `$PG_BIN` when set, else the newest of
/// Debian's /usr/lib/postgresql/VERSION/bin that has initdb (Debian 12 has 15). Found, not
/// assumed: another release has another version.
public enum PostgreSQLPrograms {
    public static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let fm = FileManager.default
        if let given = environment["PG_BIN"], !given.isEmpty { return given }
        let versions = ((try? fm.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).compactMap(Int.init).sorted(by: >)
        for v in versions where fm.isExecutableFile(atPath: "/usr/lib/postgresql/\(v)/bin/initdb") {
            return "/usr/lib/postgresql/\(v)/bin"
        }
        // Named in the failure when a program cannot be started from here.
        return "/usr/lib/postgresql/(no version with initdb: install Debian's postgresql, or set PG_BIN)/bin"
    }
}
