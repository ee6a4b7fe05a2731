import MatterFlowJSON

extension RunDriver {
    /// Runs a concurrent map state's elements until the map ends, and returns the work the map's end hands over.
    ///
    /// Each element runs in a child task as a machine of its own (``RunMachine/init(element:configuration:secrets:)``),
    /// driven by a driver of its own: its own cancel signal (fired by the run's, or by a `cancelElement` order), its
    /// own abandoned calls, the run's hub, clock, events and recording. Each element's end is fed to
    /// ``RunMachine/elementEnded(_:)``, whose orders start and cancel elements, until the map's machine hands over
    /// other work. On virtual time, this task is idle while it waits for an element, and each element's end wakes
    /// it (``WorkflowClock/next(in:)``).
    /// ``orders`` holds the element orders of the input that began the map, and on return those of the input that
    /// ended it. A map the machine cannot go on with ends the run as failed.
    ///
    /// Never inlined, like the other kinds of work in ``run()``: its task group and element signals would otherwise
    /// take room in the async frame every waiting run holds.
    @inline(never)
    func runElements() async -> RunAction {
        let clock = options.clock
        // Copied out of the driver, so that the elements' tasks capture these values and not the driver, which they
        // must not share.
        let (hub, options, runID, inbox, desk) = (hub, options, runID, inbox, desk)
        // While its elements go on, the run is not a branch of its own (``RunPause``): they are.
        options.pause?.branchEnded()
        defer { options.pause?.branchBegan() }
        return await withTaskGroup(of: ElementEnd.self, returning: RunAction.self) { group in
            var signals: [Int: (signal: CancellationSignal, token: Int)] = [:]
            defer {
                for (_, element) in signals {
                    self.signal.remove(element.token)
                    element.signal.cancel()
                }
            }
            while true {
                for order in orders {
                    switch order {
                    case .startElement(let launch):
                        let elementSignal = CancellationSignal()
                        let token = signal.onCancel { [signal] in elementSignal.cancel(reason: signal.reason) }
                        signals[launch.index] = (elementSignal, token)
                        let configuration = machine.configuration
                        let secrets = machine.secrets
                        clock.addTask(to: &group) {
                            let driver = RunDriver(
                                machine: launch.resumed ?? RunMachine(element: launch, configuration: configuration, secrets: secrets),
                                hub: hub, options: options.forElement(launch.element), runID: runID, signal: elementSignal,
                                inbox: inbox, desk: desk)
                            options.pause?.branchBegan()
                            let end = await driver.runElement(launch)
                            options.pause?.branchEnded()
                            return end
                        }
                    case .cancelElement(let index):
                        signals[index]?.signal.cancel()
                    case .report, .checkpoint, .interruptWork, .proceed, .checkStatus, .call, .delay, .waitForEvent, .askQuestion,
                        .awaitElements, .settleLateSessions, .finish:
                        break
                    }
                }
                orders = []
                if signal.isCancelled, !machine.isCancelRequested {
                    _ = feedCancel()
                    if !orders.isEmpty { continue }
                }
                guard let ended = await clock.next(in: &group) else {
                    return .finish(failure(RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "awaiting elements, none running")))
                }
                if let element = signals.removeValue(forKey: ended.index) { signal.remove(element.token) }
                let work = feed { machine throws(RunMachineError) in try machine.elementEnded(ended) }
                if case .awaitElements = work { continue }
                return work
            }
        }
    }

    /// Drives one element's machine to its end, then waits for the element's abandoned calls (each wait a warning),
    /// so that the map never ends while one of its elements' calls still runs on the hub.
    private func runElement(_ launch: ElementLaunch) async -> ElementEnd {
        let result = await run()
        var warnings = result.warnings
        if !abandoned.isEmpty {
            await abandoned.settle { report in
                let message = Self.message(report)
                warnings.append(message)
                self.report(.warning(state: machine.top.current, message: message))
            }
        }
        return ElementEnd(launch.index, of: launch.element, result: result, warnings: warnings, calls: machine.callCount)
    }
}

extension RunOptions {
    /// The options an element of a concurrent map state runs with: the run's, its calls recorded as the element's.
    fileprivate func forElement(_ element: String) -> RunOptions {
        var options = self
        options.recording = recording?.recording(forElement: element)
        return options
    }
}
