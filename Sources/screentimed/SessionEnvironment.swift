import ScreenTimeLinux

/// Something of a user's session environment (a display's cookie, sway's socket, the language):
/// from the session's leader, else from the first of the user's processes that has it. The look
/// is bounded, as the processes are the user's to make: at most `mostProcesses` of theirs, the
/// first `mostBytes` of each environment (the daemon's loop waits while it looks).
enum SessionEnvironment {
    static let mostProcesses = 64
    static let mostBytes = 64 * 1024

    static func first<T>(leader: Int32, uid: UInt32, _ pick: ([String: String]) -> T?) -> T? {
        if leader > 0, let found = pick(ProcFS.environment(of: leader, within: mostBytes)) { return found }
        let fs = ProcFS()
        var pids: [Int32] = []
        fs.pids(into: &pids)
        var looked = 0
        for pid in pids.sorted() where looked < mostProcesses {
            guard let folder = fs.open(pid) else { continue }
            let owner = fs.owner(of: folder)
            fs.release(folder)
            guard owner == uid else { continue }
            looked += 1
            if let found = pick(ProcFS.environment(of: pid, within: mostBytes)) { return found }
        }
        return nil
    }
}
