import ControlProtocol
import Foundation
import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimeLinux
import ScreenTimePolicy
import ScreenTimeStore

/// A parent changes the policy file through the daemon (issue 40: the page's edits and `stctl
/// policy set`/`unset`): each change checked as `stctl policy check` checks the whole file, shown
/// before and after, written at once with the file's comments kept, recorded with who and when,
/// taken into force, and undoable while the file is as the change left it.
extension Child {
    mutating func answerPolicyChange(_ request: ControlRequest, from caller: ControlServer.Caller, role: Authority.Role,
                                     announce: (Bool) -> Void) throws -> ControlReply {
        let what = request.command == .policyHistory ? "policy history" : request.command == .policyUndo ? "policy undo" : "policy set"
        if let no = refuseUnlessParent(what, request, caller: caller, role: role) { return no }
        switch request.command {
        case .policyHistory:
            var reply = ControlReply(ok: true)
            reply.policyHistory = try live.store.policyChanges().map(line)
            return reply
        case .policyUndo:
            return try undoPolicyChange(request, by: parentName(caller, role), announce: announce)
        default:
            return try changePolicy(request, by: parentName(caller, role), announce: announce)
        }
    }

    /// The policy file's text now (not the policy in force: a parent may have edited the file).
    private func policyFileText() throws -> String {
        guard let data = FileManager.default.contents(atPath: policyPath), let text = String(data: data, encoding: .utf8) else {
            throw PolicyEditError("\(policyPath) cannot be read as text: nothing was changed")
        }
        return text
    }

    private mutating func changePolicy(_ request: ControlRequest, by: String, announce: (Bool) -> Void) throws -> ControlReply {
        // The policy's problems in the caller's words (they travel as a figure, `detail`).
        let tr = words(forLanguage: request.language)
        guard let changes = request.changes, (1...50).contains(changes.count) else {
            return .refused(.policyChangeCount)
        }
        let before: String
        var editor: PolicyEditor
        var lines: [Store.PolicyChangeRecord.Line] = []
        do {
            before = try policyFileText()
            editor = PolicyEditor(text: before, tr: tr)
            for change in changes {
                let key = try PolicyKey(parsing: change.key, tr: tr)
                if let value = change.value, value.utf8.count > 4096 { throw PolicyEditError(tr("{key}: a value of at most 4096 bytes, please", ["key": "\(key)"])) }
                let old = key.key == nil ? editor.entryText(of: key) : editor.value(of: key)
                try editor.apply(PolicyEdit(key: key, value: change.value.map(PolicyEdit.value(typed:))))
                lines.append(Self.hidingPassphrase(.init(key: change.key, before: old, after: key.key == nil ? nil : editor.value(of: key))))
            }
        } catch let e as PolicyEditError {
            return .refused(.policyNotChanged, ["detail": e.description])
        }
        let after = editor.text
        guard after != before else { return .refused(.policySaysThat) }
        do {
            _ = try PolicyLoader.parse(after, file: policyPath, tr: tr)
        } catch {
            // The lines are those the file would have.
            return .refused(.policyWouldBreak, ["detail": error.description])
        }
        if request.preview == true {
            var reply = ControlReply(ok: true)
            reply.policyChange = .init(id: nil, at: nil, by: nil, applied: false, changes: lines.map { .init(key: $0.key, before: $0.before, after: $0.after) })
            return reply
        }
        return try write(after, over: before, lines: lines, by: by, undoes: nil, announce: announce)
    }

    private mutating func undoPolicyChange(_ request: ControlRequest, by: String, announce: (Bool) -> Void) throws -> ControlReply {
        guard let id = request.changeID else { return .refused(.undoNeedsNumber) }
        guard let record = try live.store.policyChanges(limit: 1, id: id).first else { return .refused(.noSuchChange, ["id": "\(id)"]) }
        if let later = record.undoneBy { return .refused(.undoneAlready, ["id": "\(id)", "later": "\(later)"]) }
        let now: String
        do { now = try policyFileText() } catch let e as PolicyEditError { return .refused(.asSaid, ["detail": e.description]) }
        guard now == record.textAfter else {
            return .refused(.changedSince, ["id": "\(id)"])
        }
        // The text before may have had a problem of its own (a hand edit never taken): not written back then.
        do { _ = try PolicyLoader.parse(record.textBefore, file: policyPath, tr: words(forLanguage: request.language)) } catch {
            return .refused(.undoWouldBreak, ["id": "\(id)", "detail": error.description])
        }
        let back = record.lines.map { Store.PolicyChangeRecord.Line(key: $0.key, before: $0.after, after: $0.before) }
        return try write(record.textBefore, over: now, lines: back, by: by, undoes: id, announce: announce)
    }

    /// Writes the new text, records the change and takes the policy into force.
    private mutating func write(_ text: String, over old: String, lines: [Store.PolicyChangeRecord.Line], by: String, undoes: Int64?,
                                announce: (Bool) -> Void) throws -> ControlReply {
        do {
            try FileReplacement.replace(policyPath, with: text)
        } catch {
            return .refused(.policyNotChanged, ["detail": error.description])
        }
        // Recorded, or undone at once: no change without its line in the history.
        let id: Int64
        do {
            id = try live.store.savePolicyChange(at: SystemClock.wallMicros(), by: by, lines: lines.map(Self.hidingPassphrase), before: old, after: text,
                                                 undoes: undoes)
        } catch {
            let back = (try? FileReplacement.replace(policyPath, with: old)) != nil
            return back ? .refused(.changeNotRecorded, ["detail": "\(error)"])
                        : .refused(.changeNotRecordedNorBack, ["detail": "\(error)", "file": policyPath])
        }
        let flat = { (v: String?) in (v ?? "not set").split(separator: "\n").joined(separator: " ") }
        let words = lines.map(Self.hidingPassphrase).map { "\($0.key): \(flat($0.before)) → \(flat($0.after))" }.joined(separator: "; ")
        log("policy \(undoes.map { "change \($0) undone" } ?? "changed") by \(by) (change \(id)): \(words)", level: .notice,
            ["event": undoes == nil ? "policy_changed" : "policy_change_undone", "change": "\(id)"])
        if case .failure(let why) = reloadPolicy(announce: announce) {
            return .refused(.changeNotTaken, ["id": "\(id)", "detail": why.description])
        }
        var reply = ControlReply(ok: true)
        reply.policyChange = try live.store.policyChanges(limit: 1, id: id).first.map(line)
        return reply
    }

    /// The passphrase's hash is not shown (journal, history, page): only that it changed.
    static func hidingPassphrase(_ l: Store.PolicyChangeRecord.Line) -> Store.PolicyChangeRecord.Line {
        guard l.key.hasSuffix("passphrase_hash") else { return l }
        return .init(key: l.key, before: l.before.map { _ in "(hidden)" }, after: l.after.map { _ in "(hidden, new)" })
    }

    private func line(_ r: Store.PolicyChangeRecord) -> ControlReply.PolicyChangeLine {
        let offset = live.engine.utcOffset(at: r.at)
        return .init(id: r.id, at: RFC3339.format(micros: r.at, utcOffsetSeconds: offset), by: r.by, applied: true,
                     changes: r.lines.map { .init(key: $0.key, before: $0.before, after: $0.after) }, undoes: r.undoes, undoneBy: r.undoneBy)
    }
}
