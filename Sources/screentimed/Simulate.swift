import ControlProtocol
import ScreenTimeCore
import ScreenTimePolicy
import ScreenTimeStore

extension Child {
    /// `simulate`: the last days of this child's stored log under a new policy beside the
    /// policies that were in force. Reads the state; writes nothing, changes nothing.
    func simulate(_ request: ControlRequest) throws -> ControlReply {
        guard let text = request.policy else { return .refused(.simulateNeedsPolicy) }
        let days = request.days ?? 7
        guard (1...31).contains(days) else { return .refused(.daysRange, ["command": "simulate", "most": "31"]) }
        let policy: Policy
        do throws(PolicyError) { policy = try PolicyLoader.parse(text, file: "the new policy") } catch {
            return .refused(.simulatePolicyProblem, ["detail": error.problems.map { "line \($0.line): \($0.message)" }.joined(separator: "; ")])
        }
        let engine = live.engine
        var starts = [engine.today.start]
        while starts.count < days { starts.insert(engine.day(containing: starts[0] - 12 * 3600 * Seconds.micro).start, at: 0) }
        let result = try Simulation.run(store: live.store, unsaved: live.unsavedEventLines, policy: policy, policyText: text,
                                        from: starts[0], days: starts, dayStart: { engine.day(containing: $0).start })
        func figures(_ f: Simulation.Figures) -> ControlReply.SimulatedDay.Figures {
            .init(points: f.points, learningCreditedSeconds: f.learningCredited / Seconds.micro, learningRefusedSeconds: f.learningRefused / Seconds.micro,
                  refused: f.refused.sorted { ($1.value, $0.key.rawValue) < ($0.value, $1.key.rawValue) }
                      .map { .init(reason: $0.key.rawValue, seconds: $0.value / Seconds.micro) },
                  gameSeconds: f.gameTime / Seconds.micro)
        }
        return ControlReply(ok: true, simulation: result.map { d in
            let (old, new) = (figures(d.old), figures(d.new))
            let reasons = Set(old.refused.map(\.reason) + new.refused.map(\.reason)).sorted()
            let change = reasons.compactMap { r -> ControlReply.SessionLine.Refusal? in
                let delta = (new.refused.first { $0.reason == r }?.seconds ?? 0) - (old.refused.first { $0.reason == r }?.seconds ?? 0)
                return delta == 0 ? nil : .init(reason: r, seconds: delta)
            }
            return ControlReply.SimulatedDay(
                day: String(RFC3339.format(micros: d.start, utcOffsetSeconds: engine.utcOffset(at: d.start)).prefix(10)), old: old, new: new,
                difference: .init(points: new.points - old.points, learningCreditedSeconds: new.learningCreditedSeconds - old.learningCreditedSeconds,
                                  learningRefusedSeconds: new.learningRefusedSeconds - old.learningRefusedSeconds, refused: change,
                                  gameSeconds: new.gameSeconds - old.gameSeconds))
        })
    }
}
