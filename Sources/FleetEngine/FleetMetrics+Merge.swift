import BeekonStore

/// The metrics of a fleet split into shards (`Shard`), put back together: counts add up, the
/// histograms (HdrHistogram, `CoarseHistogram`) merge, so a percentile is the whole fleet's, not
/// an average of the shards'. The shards run one clock from one start (the same fleet file and
/// seed), so their timelines and history rows line up instant for instant.
extension FleetMetrics {
    /// `parts` as one fleet; an empty list is an empty record.
    ///
    /// Two figures are bounds, since the shards' fixes pending rise and fall at instants no shard
    /// sees together: the backlog's peak (`FixAccount.maxPending`, the fleet's and each group's)
    /// is the sum of the shards' peaks (never below the true peak, and equal to it when the shards
    /// peak at one instant, as under a fault on the whole fleet), and a fault's drain ends at the
    /// first history row's end where the whole fleet's backlog was back (never before the true
    /// end; rows are 10 s wide in runs under a day). Every other figure is the one a single loop
    /// would have.
    public static func merged(_ parts: [FleetMetrics]) -> FleetMetrics {
        guard var whole = parts.first else { return FleetMetrics() }
        guard parts.count > 1 else { return whole }
        for part in parts.dropFirst() { whole.add(part) }
        let backlog = whole.history.backlog
        let width = whole.history.widthMillis
        for index in whole.drains.indices {
            let drain = whole.drains[index]
            whole.drains[index].drainMillis = backlog.indices.lazy.map { row in
                (end: whole.history.start + Int64(row + 1) * width, pending: backlog[row])
            }.first { $0.end >= drain.endedAt && $0.pending <= drain.pendingBefore }.map { $0.end - drain.endedAt }
        }
        return whole
    }

    /// Adds another shard's metrics to these (the drains' lengths are left to `merged`).
    private mutating func add(_ other: FleetMetrics) {
        // The fleet has reached the instant its slowest part has.
        virtualNow = min(virtualNow, other.virtualNow)
        realSeconds = max(realSeconds, other.realSeconds)
        devices += other.devices
        devicesByState.merge(other.devicesByState, uniquingKeysWith: +)
        fixes.merge(other.fixes)
        while fixesByGroup.count < other.fixesByGroup.count { fixesByGroup.append(FixAccount()) }
        for (group, account) in other.fixesByGroup.enumerated() { fixesByGroup[group].merge(account) }
        timeline = Self.merged(timeline, other.timeline)
        history.merge(other.history)
        drains = Self.merged(drains, other.drains)
        geofenceEvents += other.geofenceEvents
        currentLocation.fix += other.currentLocation.fix
        currentLocation.timedOut += other.currentLocation.timedOut
        currentLocation.unavailable += other.currentLocation.unavailable
        batchesSent += other.batchesSent
        uploads.merge(other.uploads)
        while uploadsByGroup.count < other.uploadsByGroup.count { uploadsByGroup.append(GroupUploads()) }
        for (group, uploads) in other.uploadsByGroup.enumerated() { uploadsByGroup[group].merge(uploads) }
        refreshesSent += other.refreshesSent
        refreshesByOutcome.merge(other.refreshesByOutcome, uniquingKeysWith: +)
        storeErrorsByCause.merge(other.storeErrorsByCause, uniquingKeysWith: +)
        fixesLostByCause.merge(other.fixesLostByCause, uniquingKeysWith: +)
        geofenceEventsLostByCause.merge(other.geofenceEventsLostByCause, uniquingKeysWith: +)
        latency.merge(other.latency)
        serverLatency.merge(other.serverLatency)
        slowAnswers += other.slowAnswers
        slowestAnswerMillis = max(slowestAnswerMillis, other.slowestAnswerMillis)
        answersAfterTimeout += other.answersAfterTimeout
        answersAfterOffline += other.answersAfterOffline
        networkDrops += other.networkDrops
        handovers += other.handovers
        oemKills += other.oemKills
        dozeIdles += other.dozeIdles
        heldBack += other.heldBack
        connectionWait.merge(other.connectionWait)
        cancelledOnWire += other.cancelledOnWire
        // One clock: each part held or dropped the same time, or its own share of it.
        clockHeldMillis = max(clockHeldMillis, other.clockHeldMillis)
        clockLagDroppedMillis = max(clockLagDroppedMillis, other.clockLagDroppedMillis)
        sent.merge(other.sent)
        timerLateness.merge(other.timerLateness)
        pace.merge(other.pace)
    }

    /// The timeline's faults as every shard ran them: the devices each took, added up.
    private static func merged(_ mine: [TimelineFault], _ theirs: [TimelineFault]) -> [TimelineFault] {
        var byFault = Dictionary(mine.map { ($0.fault, $0) }, uniquingKeysWith: { first, _ in first })
        for fault in theirs {
            if byFault[fault.fault] == nil {
                byFault[fault.fault] = fault
            } else {
                byFault[fault.fault]!.applied += fault.applied
            }
        }
        return byFault.values.sorted { ($0.startedAt, $0.fault) < ($1.startedAt, $1.fault) }
    }

    /// The drains as the whole fleet had them: the backlogs added up (how long each lasted is
    /// worked out by `merged` from the whole history).
    private static func merged(_ mine: [FaultDrain], _ theirs: [FaultDrain]) -> [FaultDrain] {
        var drains = mine
        for drain in theirs {
            guard
                let index = drains.firstIndex(where: {
                    $0.fault == drain.fault && $0.startedAt == drain.startedAt
                })
            else {
                drains.append(drain)
                continue
            }
            drains[index].pendingBefore += drain.pendingBefore
            drains[index].pendingAtEnd += drain.pendingAtEnd
        }
        return drains.sorted { ($0.endedAt, $0.fault) < ($1.endedAt, $1.fault) }
    }
}

extension FixAccount {
    /// Adds another part of the fleet's account (its backlog's peak too: see `FleetMetrics.merged`).
    mutating func merge(_ other: FixAccount) {
        maxPending += other.maxPending
        carriedOver += other.carriedOver
        handedToStores += other.handedToStores
        ledger += other.ledger
        ageAtAcknowledgement.merge(other.ageAtAcknowledgement)
        for counter in Self.counters { self[keyPath: counter.value] += other[keyPath: counter.value] }
    }
}

extension FleetPace {
    /// The pace of a fleet whose parts run on one clock: as fast as its slowest part, as late as
    /// its latest timers, behind while any part is.
    mutating func merge(_ other: FleetPace) {
        paused = paused && other.paused
        if let theirs = other.achievedWarp { achievedWarp = min(achievedWarp ?? theirs, theirs) }
        timerLatenessP99Millis = max(timerLatenessP99Millis, other.timerLatenessP99Millis)
        timerLatenessMaxMillis = max(timerLatenessMaxMillis, other.timerLatenessMaxMillis)
        behind = behind || other.behind
        behindSeconds = max(behindSeconds, other.behindSeconds)
        waitingForAnswers = (waitingForAnswers || other.waitingForAnswers) && !behind
        answerWaitSeconds = max(answerWaitSeconds, other.answerWaitSeconds)
        longestAnswerWaitSeconds = max(longestAnswerWaitSeconds, other.longestAnswerWaitSeconds)
        if let theirs = other.minAchievedWarp { minAchievedWarp = min(minAchievedWarp ?? theirs, theirs) }
    }
}
