import ControlProtocol
import Foundation
import ScreenTimeLinux

/// The parents' page under load (issue #21): the release screentime-web in front of the release
/// daemon, its family page asked 200 times a second by wrk (Debian's) with a logged-in parent's
/// cookie, while the daemon's socket is asked `status` as stctl asks it. wrk has no rate option
/// (that is wrk2): each of its 10 connections waits 50 ms after each answer (a Lua `delay`), so
/// the load is at most 200 requests a second.
func webBench(binaries: String, for duration: Int = 30) {
    guard duration > 0 else { return }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
        print("parents' page under load: wrk is not installed (Debian's wrk; make bench installs it)"); return
    }
    guard FileManager.default.isExecutableFile(atPath: binaries + "/screentime-web") else {
        print("parents' page under load: \(binaries)/screentime-web is not built (make bench builds it)"); return
    }
    let base = dir + "/web"
    try! FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    let passphrase = "bench passphrase"
    guard let hash = output("/usr/bin/mkpasswd", ["-m", "yescrypt", "--stdin"], input: passphrase + "\n")?
        .trimmingCharacters(in: .whitespacesAndNewlines), hash.hasPrefix("$y$") else {
        print("parents' page under load: mkpasswd is missing (Debian's whois; make bench installs it)"); return
    }
    try! (policyText + "\n[parents]\npassphrase_hash = \"\(hash)\"\n").write(toFile: base + "/policy.toml", atomically: true, encoding: .utf8)
    let socket = base + "/control.sock"
    guard let daemon = start(binaries + "/screentimed", ["--policy", base + "/policy.toml", "--state-dir", base + "/state", "--socket", socket]) else {
        print("parents' page under load: the daemon did not start"); return
    }
    defer { daemon.terminate(); daemon.waitUntilExit() }
    var connection: UnixConnection? = nil
    for _ in 0..<200 where connection == nil {
        connection = try? UnixConnection.connect(path: socket)
        if connection == nil { usleep(20_000) }
    }
    guard let c = connection else { print("parents' page under load: the daemon did not listen"); return }

    let web = Process()
    web.executableURL = URL(fileURLWithPath: binaries + "/screentime-web")
    web.arguments = ["--listen", "127.0.0.1:0", "--socket", socket]
    let out = Pipe()
    web.standardOutput = out
    web.standardError = FileHandle.nullDevice
    try! web.run()
    defer { web.terminate(); web.waitUntilExit() }
    let first = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
    guard let at = first.range(of: "listening on ") else { print("parents' page under load: screentime-web did not start (\(first))"); return }
    let url = first[at.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)

    // A parent logs in, as a browser does (the login form's token is its cookie's too).
    let login = """
        import http.client, re, sys, urllib.parse
        u = urllib.parse.urlsplit(sys.argv[1])
        c = http.client.HTTPConnection(u.hostname, u.port); c.request("GET", "/login"); r = c.getresponse()
        nonce = re.search(r"st_login=([0-9a-f]+)", r.getheader("Set-Cookie")).group(1); r.read()
        c.request("POST", "/login", body=urllib.parse.urlencode({"csrf": nonce, "passphrase": sys.argv[2]}),
                  headers={"Cookie": "st_login=" + nonce, "Content-Type": "application/x-www-form-urlencoded"})
        r = c.getresponse()
        print(re.search(r"st_session=([0-9a-f]+)", " ".join(v for k, v in r.getheaders() if k == "Set-Cookie")).group(1))
        """
    guard let cookie = output("/usr/bin/python3", ["-c", login, url, passphrase])?.trimmingCharacters(in: .whitespacesAndNewlines),
          !cookie.isEmpty else {
        print("parents' page under load: logging in failed"); return
    }

    var reader = FrameReader()
    let status = ControlProtocol.encode(ControlRequest(.status))
    func statusP99(_ n: Int) -> Double {
        var times: [Double] = []
        for _ in 0..<n {
            let t = ContinuousClock.now
            guard c.write(status) else { break }
            while let bytes = c.read(), reader.append(bytes).isEmpty {}
            times.append(seconds(ContinuousClock.now - t))
            usleep(2_000)
        }
        times.sort()
        return times.isEmpty ? .nan : times[min(times.count - 1, times.count * 99 / 100)]
    }
    let quiet = statusP99(2_000)

    try! "request = function() return wrk.format(\"GET\", \"/\") end\ndelay = function() return 50 end\n"
        .write(toFile: base + "/pace.lua", atomically: true, encoding: .utf8)
    let wrk = Process()
    wrk.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
    wrk.arguments = ["-t", "2", "-c", "10", "-d", "\(duration)s", "--latency", "-s", base + "/pace.lua", "-H", "Cookie: st_session=\(cookie)", url + "/"]
    let wrkOut = Pipe()
    wrk.standardOutput = wrkOut
    try! wrk.run()
    usleep(2_000_000)
    let loaded = statusP99(max(1_000, (duration - 4) * 300))
    let report = String(decoding: wrkOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    wrk.waitUntilExit()
    func figure(_ label: String) -> String? {
        report.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? "?" }
    }
    let rate = figure("Requests/sec:") ?? "?"
    let non2xx = report.contains("Non-2xx") ? " (some answers were not 200: \(report.split(separator: "\n").first { $0.contains("Non-2xx") } ?? ""))" : ""
    print("parents' page under load: the family page at \(rate) requests/s (wrk, 10 connections, \(duration) s): p50 \(figure("50%") ?? "?"), "
          + "p99 \(figure("99%") ?? "?") (target p99 ≤ 50 ms)\(non2xx); the daemon's socket meanwhile: status p99 "
          + "\(String(format: "%.0f", loaded * 1e6)) µs (\(String(format: "%.0f", quiet * 1e6)) µs without the page; target p99 < 1 ms)")
}

/// What a program printed, or nil when it could not run or failed.
func output(_ path: String, _ arguments: [String], input: String? = nil) -> String? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    let out = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardInput = inp
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return nil }
    if let input { inp.fileHandleForWriting.write(Data(input.utf8)) }
    try? inp.fileHandleForWriting.close()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return p.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
}
