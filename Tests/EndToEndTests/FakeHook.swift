import Foundation

/// A desktop hook's events, sent over the control socket by a small Python client (as `uid`, or
/// as root): the focus on `pid`'s window (app id "gcompris", title "GCompris"), then `inputs`
/// input events 0.3 s apart, then `quiet` seconds of nothing, on one connection. Its stdout is how
/// many of those events the daemon took.
enum FakeHook {
    static func send(to socket: String, focusOn pid: Int32, inputs: Int, quiet: Double = 0, uid: UInt32? = nil,
                     user: String? = nil, hook: String = "test") throws -> ReplayBinaryTests.Run {
        let script = #"""
            import socket, sys, time
            path, pid, inputs, quiet, hook, user = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
            s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rb")
            about = (', "user": "%s"' % user) if user else ""
            def send(event):
                s.sendall(('{"v": 1, "command": "hook_event", "hook": "%s"%s, "event": "%s"}\n' % (hook, about, event.replace('"', '\\"'))).encode())
                return b'"ok":true' in f.readline()
            taken = [send('{"event": "focus_changed", "pid": %s, "app_id": "gcompris", "title": "GCompris"}' % pid)]
            for _ in range(inputs):
                taken.append(send('{"event": "input", "count": 1}'))
                time.sleep(0.3)
            time.sleep(quiet)
            print(sum(taken))
            """#
        let python = ["/usr/bin/python3", "-c", script, socket, "\(pid)", "\(inputs)", "\(quiet)", hook, user ?? ""]
        guard let uid else { return try ReplayBinaryTests.runBinary(python[0], Array(python.dropFirst())) }
        return try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + python)
    }

    /// How many events the daemon took, as the client printed it.
    static func taken(_ run: ReplayBinaryTests.Run) -> Int? { Int(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) }
}
