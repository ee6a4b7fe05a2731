import MatterFlowJSON

/// How a run starts: on a ``CallSegment``'s task, which makes hub calls without a task per call until it suspends,
/// then hands the run to the task that called ``RunDriver/run()``.
extension RunDriver {
    /// Drives the machine from its start to its end.
    ///
    /// The run starts on a task of its own, a ``CallSegment``, which makes its hub calls inline until the task first
    /// suspends; this task waits for it. Once the segment has suspended it hands its next work over, and this task
    /// drives the rest of the run; when a timeout or cancel wins over the call the segment is suspended in, this task
    /// ends that call and drives the rest. A caller is never held by a hub that does not answer.
    func run() async -> RunResult {
        let segment = CallSegment(clock: options.clock)
        var end = start(segment)
        if end == nil { end = await segment.next() }
        if let end, end != .finished { await driveOn(after: end, from: segment) }
        return takeResult()
    }

    /// Drives the rest of a run `segment` handed over, or lost in a hub call (its timeout or the run's cancel), from
    /// the work handed over or the lost call's end.
    @inline(never)
    private func driveOn(after end: CallSegment.End, from segment: CallSegment) async {
        let work: RunAction?
        switch end {
        case .handedOver: work = segment.takeWork()
        case .timedOut: work = await takeOver(.timedOut, from: segment)
        case .cancelled: work = await takeOver(.cancelled, from: segment)
        case .finished: work = nil
        }
        guard let work else { return endRefused("a run handed over without its work") }
        if await !drive(work, segment: nil) { endRefused("a run handed over twice") }
    }

    /// Starts the run on `segment`'s task, and returns once that task has suspended or ended: how the segment
    /// ended, or nil while it goes on (the call it is suspended in, if any, then armed against its timeout and the
    /// run's cancel).
    @inline(never)
    private func start(_ segment: CallSegment) -> CallSegment.End? {
        let first = feed { machine throws(RunMachineError) in try machine.start() }
        if case .finish = first {
            end(with: first)
            return .finished
        }
        let clock = options.clock
        let handoff = Handoff(driver: self, work: first)
        clock.beginActivity()
        let task = Task.immediate(name: Self.segmentName(runID)) {
            if await handoff.driver.drive(handoff.work, segment: segment) { segment.finish() }
            clock.endActivity()
        }
        return segment.suspended(task: task, signal: signal)
    }

    /// The run's result, kept by ``end(with:)``.
    @inline(never)
    private func takeResult() -> RunResult {
        guard case .finish(let result)? = ended.take() else {
            return failure(RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "an end without a result"))
        }
        return result
    }

    /// Ends the run as failed: the driver could not go on with it (`input` says why).
    @inline(never)
    func endRefused(_ input: String) {
        ended = .finish(failure(RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: input)))
    }

    /// The name of a run's segment task, `matterflow run <run ID>`, as debuggers and ``Task/name`` show it: one name per
    /// run, not per call, so that a hub can tell the run's own task from a call's race.
    static func segmentName(_ runID: String) -> String { "matterflow run " + runID }

    /// The driver and the work it starts from, handed to the task of a ``CallSegment``.
    ///
    /// Safe to send, though the driver is not `Sendable`: one task at a time uses it. The segment's task uses it
    /// until it ends, hands the run over or loses it; a task that lost the run touches the driver no more once
    /// ``CallSegment/endCall(_:)`` says so, and ``run()``'s task uses it only after ``CallSegment/next()`` (or
    /// ``CallSegment/suspended(task:signal:)``) said how the segment ended, which the segment's lock orders after
    /// everything the segment's task did.
    private struct Handoff: @unchecked Sendable {
        let driver: RunDriver
        let work: RunAction
    }
}
