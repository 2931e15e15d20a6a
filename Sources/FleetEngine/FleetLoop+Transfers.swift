import BeekonDevice
import BeekonNet
import BeekonStore
import FleetDescription
import HTTPTypes

extension FleetLoop {
    /// The SDK's timeouts: 30 s for an upload, 15 s for a token refresh (seed 05).
    package static func timeoutMillis(_ kind: TransferKind) -> Int64 {
        switch kind {
        case .upload: UploadRequest.timeoutMillis
        case .refresh: RefreshRequest.timeoutMillis
        }
    }

    /// Sends a transfer: arms its virtual timeout, decides whether a `timeouts` fault takes it,
    /// draws its fate over the device's modelled network (`LinkDraw`), and queues the real
    /// request, unless that network failed it before the server could have it.
    mutating func startTransfer(
        slot: Int, kind: TransferKind, request: OutboundRequest, fixIDs: [UUIDv7] = [], at time: Int64
    ) {
        var request = request
        // Idle on the virtual clock for `idleCloseSeconds` or longer: a phone would have dropped it.
        if slots[slot].waiting.transfersOut.isEmpty, let idleSince = slots[slot].waiting.lastEndedAt {
            request.freshConnection = time - idleSince >= Int64(fleet.network.idleCloseSeconds) * 1000
        }
        if slots[slot].link.connectionLost {
            request.freshConnection = true
            slots[slot].link.connectionLost = false
        }
        let hangs =
            slots[slot].link.timeoutFraction > 0
            && Double.random(in: 0..<1, using: &slots[slot].link.rng) < slots[slot].link.timeoutFraction
        var networkMillis: Int64 = 0
        var linkFailure: (failure: TransferOutcome.LinkFailure, afterMillis: Int64)?
        if let network = slots[slot].link.network {
            let bytes = transfers.wireSizes.bytes(of: request)
            let draw = LinkDraw.draw(network, bodyBytes: bytes, using: &slots[slot].link.networkDraws)
            switch draw.fate {
            case .deliver(let extraMillis): networkMillis = extraMillis
            case .fail(let failure, let afterMillis): linkFailure = (failure, afterMillis)
            }
            // On the wire too: the body leaves at the uplink's pace (the driver scales it by the
            // warp), and a reset cuts it where the draw says.
            request.maxSendBytesPerSecond = Int((network.uplinkKbps * 1000 / 8).rounded(.up))
            // At least a byte of body goes, so the head reaches the server before the cut.
            request.abortAfterBytes = draw.resetAfterBytes.map { max(1, $0) }
        }
        let deadline = time + Self.timeoutMillis(kind)
        var transfer = TransferInFlight(
            slot: slot, kind: kind, sentAt: time, deadline: deadline, fixIDs: fixIDs, hangs: hangs,
            injectedLatencyMillis: slots[slot].link.extraLatencyMillis + networkMillis, life: slots[slot].os.life)
        // The link decides: the device hears `outcome` this long after the send (and any `latency`
        // fault), unless its timeout comes first.
        func decidedByLink(_ outcome: HTTPOutcome, _ label: TransferOutcome, afterMillis: Int64) {
            transfer.hangs = false
            transfer.linkFailed = true
            let heardAt = time + afterMillis + slots[slot].link.extraLatencyMillis
            if heardAt < deadline { (transfer.held, transfer.answerAt) = ((outcome, label), heardAt) }
        }
        if let portal = slots[slot].link.portal {
            // A captive portal answers at the gateway, a short round trip away: nothing reaches
            // the server.
            decidedByLink(Self.portalOutcome(portal), .captivePortal, afterMillis: Self.portalAnswerMillis)
            request.abortAfterBytes = nil
        } else if let linkFailure {
            // Never on the wire, or, for a reset, cut on it.
            decidedByLink(
                .failed(Self.networkErrorKind(linkFailure.failure)), .injected(linkFailure.failure),
                afterMillis: linkFailure.afterMillis)
        }
        let number = transfers.open(transfer)
        slots[slot].waiting.transfersOut.append(number)
        schedule.timers.schedule((), key: .transferTimeout(number), at: deadline)
        if transfer.linkFailed {
            // A failed lookup or handshake sends nothing; a reset sends what went before it, and
            // with modelled timing its device waits for the real cut (so the server sees it cut
            // where the draw says, at any warp) as it would for an answer.
            let cut = request.abortAfterBytes != nil
            if cut { transfers[number]?.cutOnWire = true }
            if let heardAt = transfer.answerAt {
                if cut, case .modelled = clock.transferTiming {
                    awaitAnswer(number, at: heardAt)
                } else {
                    schedule.timers.schedule((), key: .delivery(number), at: heardAt)
                }
            }
            guard cut else { return }
        }
        if case .modelled(let latency) = clock.transferTiming, !hangs, !transfer.linkFailed {
            let answerAt = time + latency + transfer.injectedLatencyMillis
            if answerAt < deadline { awaitAnswer(number, at: answerAt) }
        }
        let outgoing = OutgoingTransfer(number: number, kind: kind, sentAt: time, http: request)
        if clock.standsStill {
            transfers[number]?.unsent = outgoing
        } else {
            putOut(outgoing, slot: slot)
        }
    }

    /// Hands a sent transfer to the driver, which puts it on the wire.
    private mutating func putOut(_ outgoing: OutgoingTransfer, slot: Int) {
        switch outgoing.kind {
        case .upload: metrics.batchesSent += 1
        case .refresh: metrics.refreshesSent += 1
        }
        metrics.sent.add(device: slots[slot].id, request: outgoing.http)
        effects.append(.send(outgoing))
    }

    /// The fleet was paused at a warp (`standsStill`), or goes on again. Paused, nothing new
    /// reaches the server, and what it answered is heard at once, at the paused instant (not at
    /// a modelled instant past it), so a paused fleet's accounting agrees with the server's
    /// store; a request a device sends meanwhile (the drain's next batch) waits, on the device's
    /// stopped clock, until the fleet goes on. A fault's delay (injected latency, a `timeouts`
    /// hang) stays on the stopped clock too. So a paused and resumed run is not the digest of
    /// one never paused, as a warp change under `as-answered` timing is not.
    package mutating func setStandsStill(_ still: Bool) {
        guard clock.setStandsStill(still) else { return }
        if still {
            for number in transfers.numbers { hearWhileStill(number) }
            return
        }
        // In the order sent: numbers are given in that order.
        for number in transfers.numbers {
            guard let transfer = transfers[number], let outgoing = transfer.unsent else { continue }
            transfers[number]?.unsent = nil
            putOut(outgoing, slot: transfer.slot)
        }
    }

    /// Transfer `number`'s real request ended while the clock stands still: its device hears it
    /// now (an answer, a network failure, or with no answer within the SDK's timeout in real
    /// time, the server's `timeout`), unless a fault delays it.
    private mutating func hearWhileStill(_ number: Int) {
        guard clock.standsStill, let transfer = transfers[number], transfer.realEnded, !transfer.hangs,
            transfer.injectedLatencyMillis == 0
        else { return }
        if let held = transfer.held {
            finishTransfer(number, outcome: held.outcome, label: held.label, at: metrics.virtualNow)
        } else if transfer.answerAt == nil {
            transferTimedOut(number, at: metrics.virtualNow)
        }
    }

    /// The real request ended (on the transport's thread, handed over at the virtual time the
    /// loop has reached). An answer after the device's timeout, or after its network went down,
    /// is counted and dropped: the device has moved on, as a phone would.
    package mutating func transferFinished(number: Int, result: HTTPResult) {
        if case .response(_, _, let millis) = result {
            recordServerAnswer(number, millis: millis)
            noteSlowAnswer(serverMillis: millis)
        }
        guard var transfer = transfers[number] else {
            let late = transfers.lateEnd(number)
            if let unheard = late.unheard, case .response(let response, _, _) = result {
                countUnheardAcknowledgement(
                    status: response.status.code, batchID: unheard.batchID, fixIDs: unheard.fixIDs, slot: unheard.slot,
                    life: unheard.life, at: metrics.virtualNow)
            }
            if late.cancelled {
                // Closed because its device gave up: an answer that beat the close came too late.
                if case .failed(.cancelled, _, _) = result { return }
                metrics.answersAfterTimeout += 1
            } else if late.offline {
                metrics.answersAfterOffline += 1
            } else {
                metrics.answersAfterTimeout += 1
            }
            return
        }
        transfer.realEnded = true
        if transfer.cutOnWire {
            // Its outcome is the link's reset, heard at its own instant; this is only the cut.
            transfers[number] = transfer
            refreshAnswerHold(transfer.slot)
            return
        }
        let now = metrics.virtualNow
        let outcome: HTTPOutcome
        let label: TransferOutcome
        switch result {
        case .response(let response, let body, let millis):
            outcome = .response(onDeviceClock(response), body: body)
            label = .status(response.status.code)
            transfer.serverMillis = millis
            transfer.answeredStatus = response.status.code
        case .failed(let failure, _, let millis):
            outcome = .failed(Self.networkErrorKind(failure))
            label = TransferOutcome(failure)
            // No answer came: a wall-clock timeout is not the SDK's, so it waits for its own.
            if failure == .timeout {
                transfer.answerAt = nil
                schedule.timers.cancel(.delivery(number))
                transfers[number] = transfer
                refreshAnswerHold(transfer.slot)
                hearWhileStill(number)
                return
            }
            transfer.serverMillis = millis
        }
        if case .modelled = clock.transferTiming {
            // The clock waits short of `answerAt` for this answer, heard there by the delivery
            // timer armed at the send; without one (hung, too late), the timeout answers.
            if transfer.answerAt != nil { transfer.held = (outcome, label) }
            transfers[number] = transfer
            refreshAnswerHold(transfer.slot)
            hearWhileStill(number)
            return
        }
        let answerAt = now + transfer.injectedLatencyMillis
        // Hung by a fault, or later (with injected latency) than the SDK waits: the timeout answers.
        if transfer.hangs || answerAt >= transfer.deadline {
            transfers[number] = transfer
            return
        }
        guard answerAt > now else {
            transfers[number] = transfer
            finishTransfer(number, outcome: outcome, label: label, at: now)
            return
        }
        transfer.held = (outcome, label)
        transfer.answerAt = answerAt
        transfers[number] = transfer
        schedule.timers.schedule((), key: .delivery(number), at: answerAt)
    }

    /// Modelled timing: transfer `number` is heard at `answerAt`, once its real answer is in; its
    /// device's events wait there meanwhile (and, without lookahead, the turn stops short of it).
    /// The delivery timer is armed now, not when the real answer comes, so answers due at one
    /// instant are heard in the order they were sent, whatever order the server answered in.
    private mutating func awaitAnswer(_ number: Int, at answerAt: Int64) {
        guard let slot = transfers[number]?.slot else { return }
        transfers[number]?.answerAt = answerAt
        schedule.answerLimit = min(schedule.answerLimit, answerAt - 1)
        slots[slot].waiting.answerHold = min(slots[slot].waiting.answerHold ?? answerAt, answerAt)
        schedule.timers.schedule((), key: .delivery(number), at: answerAt)
    }

    /// From now on every transfer takes modelled time (max warp began through the control API,
    /// which needs it). A transfer sent under `asAnswered` whose real answer is not in yet is
    /// heard at its modelled instant, or just past where the clock stands if that has gone by,
    /// once its answer is in; one already answered or given up on ends as it would have.
    package mutating func useModelledTiming() {
        guard let latency = clock.useModelledTiming() else { return }
        let now = metrics.virtualNow
        for number in transfers.numbers {
            guard let transfer = transfers[number], transfer.answerAt == nil, !transfer.hangs, !transfer.realEnded,
                !transfer.linkFailed
            else { continue }
            let answerAt = max(transfer.sentAt + latency + transfer.injectedLatencyMillis, now + 1)
            if answerAt < transfer.deadline { awaitAnswer(number, at: answerAt) }
        }
    }

    /// The answer as the device reads it: a `Retry-After` HTTP-date is on the server's clock, so
    /// it becomes the delay it means there (from the answer's `Date`, else the wall clock when it
    /// came), which the device counts on the virtual clock. A real server's date in November
    /// would otherwise be months away for a fleet whose virtual clock is in June.
    private func onDeviceClock(_ response: HTTPResponse) -> HTTPResponse {
        guard let value = response.headerFields[.retryAfter] else { return response }
        let serverNow = response.headerFields[.date].flatMap(RetrySchedule.httpDateMillis) ?? clock.wallMillis
        guard let serverNow, let delay = RetrySchedule.retryAfterDelay(value, serverNow: serverNow) else {
            return response
        }
        var onDevice = response
        onDevice.headerFields[.retryAfter] = delay
        return onDevice
    }

    /// The clock's warp is now `newWarp` (set through the control API): with the timing chosen by
    /// the warp, transfers take modelled time from now on unless it is 1. Never back: a run that
    /// turned modelled stays reproducible.
    package mutating func setWarp(_ newWarp: Double) {
        if clock.setWarp(newWarp) { useModelledTiming() }
    }

    /// Recomputes a device's answer hold after one of its transfers was answered or ended; when
    /// it moved later (or went), its parked events go back in the timer order.
    mutating func refreshAnswerHold(_ slot: Int) {
        let before = slots[slot].waiting.answerHold
        var hold: Int64?
        for number in slots[slot].waiting.transfersOut {
            guard let answerAt = transfers[number]?.awaitedAnswerAt else { continue }
            hold = min(hold ?? answerAt, answerAt)
        }
        slots[slot].waiting.answerHold = hold
        if (hold ?? .max) > (before ?? .max) { schedule.timers.release(lane: slot) }
    }

    /// At the end of a run: every answer that is in but held (modelled time, injected latency) is
    /// heard at its instant, so rows the server took are acknowledged rather than sent again by
    /// the next run. Called once the run is `draining`, so nothing new is sent.
    package mutating func deliverHeldAnswers() {
        let held = transfers.waited.filter { $0.value.held != nil }.sorted { $0.key < $1.key }
        for (number, transfer) in held {
            let time = max(metrics.virtualNow, transfer.answerAt ?? metrics.virtualNow)
            schedule.reachedMillis = max(schedule.reachedMillis, time)
            deliverHeld(number, at: time)
        }
    }

    /// A held answer's injected latency is over.
    mutating func deliverHeld(_ number: Int, at time: Int64) {
        guard let transfer = transfers[number], let held = transfer.held else { return }
        if transfer.cutOnWire, !transfer.realEnded {
            // Heard before the real cut came back (a warp): its end is closed quietly.
            transfers.markCancelled(number)
            effects.append(.cancel(number, onWire: true))
        }
        finishTransfer(number, outcome: held.outcome, label: held.label, at: time)
    }

    /// The one way the app's network comes or goes (a `networkOffline` fault, its flapping,
    /// Doze): when the app is online now (`DeviceSlot.online`) and was not, or the other way, the
    /// device is told, and a lost network ends what it has out.
    mutating func networkMayHaveChanged(_ slot: Int, wasOnline: Bool, at time: Int64) {
        let online = slots[slot].online
        guard online != wasOnline else { return }
        feed(.networkChanged(online: online), to: slot, at: time)
        if !online { networkLost(slot, at: time) }
    }

    /// The device's network went down (after it was told), or a handover moved it to another
    /// (`label` `handover`): each transfer it has out ends for it now as `offline` (or, after a
    /// handover, as a reset the fleet counts `handover`), as nothing more reaches a phone over a
    /// network it lost, and its next request opens a new connection. The real request, sent
    /// while the device was online, still goes (so the server sees what the device sent, however
    /// the turns fell); its end, in already or still to come, is counted once
    /// (`answersAfterOffline`) and never heard.
    mutating func networkLost(_ slot: Int, as label: TransferOutcome = .offline, at time: Int64) {
        slots[slot].link.connectionLost = true
        for number in slots[slot].waiting.transfersOut.sorted() {
            if transfers[number]?.realEnded == true {
                metrics.answersAfterOffline += 1
            } else if let transfer = transfers[number], !transfer.waitsForResume, !transfer.linkFailed {
                let upload = if case .upload = transfers[number]?.kind { true } else { false }
                transfers.markOffline(number, slot: slot, upload: upload)
            }
            finishTransfer(number, outcome: .failed(label == .offline ? .offline : .reset), label: label, at: time)
        }
    }

    /// The SDK's timeout: the device hears `timeout`, whatever the server does later. The fleet
    /// counts whose timeout it was (`timeoutCause`). A request its device gave up on for want of
    /// an answer is closed on the wire, as a phone's HTTP client cancels it, so none of the
    /// device's later requests waits behind it; one the fleet never put there never goes. One an
    /// injected fault timed out is left to end (the server sees what the device sent, whatever
    /// the warp), as for `offline`.
    mutating func transferTimedOut(_ number: Int, at time: Int64) {
        guard let transfer = transfers[number] else { return }
        let label = timeoutCause(transfer)
        switch label {
        case .notSent:
            effects.append(.cancel(number, onWire: false))
        case .failed(.timeout), .warpTimeout:
            if label == .warpTimeout {
                // No answer within the timeout ÷ the warp: at least that slow (`slowServerWarning`).
                metrics.slowAnswers += 1
                metrics.slowestAnswerMillis = max(
                    metrics.slowestAnswerMillis, Double(time - transfer.sentAt) / clock.warp)
            }
            if !transfer.realEnded {
                transfers.markCancelled(number)
                metrics.cancelledOnWire += 1
                effects.append(.cancel(number, onWire: true))
            }
        default:
            break
        }
        finishTransfer(number, outcome: .failed(.timeout), label: label, at: time)
    }

    /// Whose timeout a transfer's is, as its device reaches its deadline: the fleet's (never put
    /// on the wire, or put there so late behind the cap that the server had less than the SDK's
    /// timeout; or timed as answered above warp 1, where the deadline came after the SDK's
    /// timeout divided by the warp in real time), an injected fault's (a modelled network's too),
    /// or the server's (no answer within the SDK's timeout in real time).
    func timeoutCause(_ transfer: TransferInFlight) -> TransferOutcome {
        if transfer.heldBack { return .notSent(.connectionCap) }
        // A `timeouts` fault took it; or the server answered, and injected latency put the answer
        // past the deadline.
        // Or its modelled network failed it so late that the timeout came first (it never went).
        if transfer.hangs || transfer.answeredStatus != nil || transfer.held != nil || transfer.linkFailed {
            return .injectedTimeout
        }
        // Modelled: its request ended with no answer within the SDK's timeout in real time.
        if transfer.realEnded { return .failed(.timeout) }
        switch clock.transferTiming {
        case .modelled:
            // The clock waits for a modelled answer, so only injected latency puts the deadline
            // first while the request is still out.
            return .injectedTimeout
        case .asAnswered:
            if clock.warp > 1 { return .warpTimeout }
            // The deadline is the SDK's timeout ÷ the warp after the send in real time; the cap's
            // wait came out of it, and what was left on the wire was short of the SDK's timeout.
            let timeout = Double(Self.timeoutMillis(transfer.kind))
            let onWire = timeout / max(clock.warp, 1e-9) - transfer.heldBackMillis
            return transfer.heldBackMillis > 0 && onWire < timeout ? .notSent(.connectionCap) : .failed(.timeout)
        }
    }

    /// The driver holds transfer `number` behind the fleet's connection cap (`--max-connections`).
    package mutating func holdBack(_ number: Int) {
        guard transfers[number] != nil else { return }
        transfers[number]?.heldBack = true
        metrics.heldBack += 1
    }

    /// The driver put transfer `number`, held back by the cap, on the wire after `waitedMillis`
    /// real ms.
    package mutating func putOnWire(_ number: Int, waitedMillis: Double) {
        metrics.connectionWait.record(waitedMillis)
        transfers[number]?.heldBack = false
        transfers[number]?.heldBackMillis = waitedMillis
    }

    /// The server's real time for an upload it answered, for the fleet and the device's group,
    /// whether or not the device heard the answer.
    private mutating func recordServerAnswer(_ number: Int, millis: Double) {
        guard let slot = transfers.uploadOwner(number) else { return }
        metrics.serverLatency.record(millis)
        metrics.uploadsByGroup[slots[slot].group].serverLatency.record(millis)
    }

    /// Records what the device hears (the outcome it sees, its virtual latency, and the server's
    /// own wall-clock time beside it) and hands it to the device.
    private mutating func finishTransfer(_ number: Int, outcome: HTTPOutcome, label: TransferOutcome, at time: Int64) {
        guard let transfer = transfers.close(number) else { return }
        schedule.timers.cancel(.transferTimeout(number))
        schedule.timers.cancel(.delivery(number))
        let slot = transfer.slot
        slots[slot].waiting.transfersOut.removeAll { $0 == number }
        slots[slot].waiting.lastEndedAt = time
        refreshAnswerHold(slot)
        let latency = Double(time - transfer.sentAt)
        switch transfer.kind {
        case .upload(let batchID):
            if !transfer.realEnded {
                // Its end may still come (a cancelled one's too, if its answer beat the close);
                // one never put on the wire has none.
                if !transfer.neverOnWire {
                    transfers.markUnheard(
                        number, .init(slot: slot, batchID: batchID, fixIDs: transfer.fixIDs, life: transfer.life))
                }
            } else if let status = transfer.answeredStatus,
                label != .status(status) || transfer.life != slots[slot].os.life || slots[slot].removed
            {
                countUnheardAcknowledgement(
                    status: status, batchID: batchID, fixIDs: transfer.fixIDs, slot: slot, life: transfer.life, at: time
                )
            }
            if !transfer.neverOnWire, !label.endsTheBatch {
                recordTold(
                    .unacknowledged, batchID: batchID, fixIDs: transfer.fixIDs, slot: slot, life: transfer.life,
                    at: time)
            }
            metrics.latency.record(latency)
            metrics.uploads.record(
                label, latencyMillis: latency, serverMillis: transfer.serverMillis, realNanos: clock.realNow)
            let group = slots[slot].group
            metrics.uploadsByGroup[group].record(label, latencyMillis: latency, serverMillis: transfer.serverMillis)
            metrics.history.recordUpload(
                label, latencyMillis: latency, serverMillis: transfer.serverMillis, at: time)
            noteChange(slot)
            slots[slot].recent.uploads.append(
                UploadRecord(
                    at: time, batchID: batchID, fixes: transfer.fixes, outcome: label, latencyMillis: latency,
                    serverMillis: transfer.serverMillis))
            // A portal's 200 deletes the rows as the server's would: the store tells them apart.
            if label == .captivePortal { slots[slot].waiting.portalAnswered = batchID }
            feed(.uploadFinished(batchID: batchID, outcome), to: slot, at: time)
            slots[slot].waiting.portalAnswered = nil
        case .refresh:
            metrics.refreshesByOutcome[label, default: 0] += 1
            slots[slot].recent.lastRefreshOutcome = label
            noteChange(slot)
            feed(.refreshFinished(outcome), to: slot, at: time)
        }
    }

    /// How long a captive portal takes to answer, virtual ms: a gateway on the phone's own
    /// network, a short round trip away.
    static let portalAnswerMillis: Int64 = 100

    /// What a captive portal answers: its login page (200, HTML) or a redirect to it (302).
    static func portalOutcome(_ answer: FleetAction.PortalAnswer) -> HTTPOutcome {
        switch answer {
        case .redirect302, .off:
            return .response(
                HTTPResponse(
                    status: .found, headerFields: [.location: "http://portal.example/login", .contentLength: "0"]),
                body: [])
        case .html200:
            let page = Array("<html><head><title>Sign in to Wi-Fi</title></head><body>Sign in</body></html>".utf8)
            return .response(
                HTTPResponse(status: .ok, headerFields: [.contentType: "text/html; charset=utf-8"]), body: page)
        }
    }

    /// A captive portal's 200 deleted `batch`'s rows: fixes a phone loses so, counted apart from
    /// what the server acknowledged.
    mutating func countPortalAcknowledgement(_ batch: PendingBatch, slot: Int) {
        let group = slots[slot].group
        metrics.fixes.portalAcknowledgements.batches += 1
        metrics.fixes.portalAcknowledgements.fixes += batch.locations.count
        metrics.fixesByGroup[group].portalAcknowledgements.batches += 1
        metrics.fixesByGroup[group].portalAcknowledgements.fixes += batch.locations.count
    }

    /// An upload answered `status` that its device never heard (its timeout, its network's loss,
    /// its process's death or its deletion through the admin API came first): a 2xx means its
    /// fixes will be sent again (a deleted device's, by a later run that resumes it). Recorded in
    /// its store too: the server holds fixes the device still has pending.
    private mutating func countUnheardAcknowledgement(
        status: Int, batchID: UUIDv7, fixIDs: [UUIDv7], slot: Int, life: Int, at time: Int64
    ) {
        guard UploadVerdict(status: status) == .accepted else { return }
        let group = slots[slot].group
        metrics.fixes.unheardAcknowledgements.batches += 1
        metrics.fixes.unheardAcknowledgements.fixes += fixIDs.count
        metrics.fixesByGroup[group].unheardAcknowledgements.batches += 1
        metrics.fixesByGroup[group].unheardAcknowledgements.fixes += fixIDs.count
        recordTold(.unheardAcknowledgement, batchID: batchID, fixIDs: fixIDs, slot: slot, life: life, at: time)
    }

    /// Keeps in the device's store what it was told of a batch that ended without its rows being
    /// deleted (an acknowledgement or rejection is recorded with the delete), so `verify` knows
    /// every fix id the device sent even after retention or `deleteLocations` removed it. Not for
    /// a device deleted through the admin API: its store is no longer the fleet's to write. Nor for
    /// a batch an uninstalled install sent (a process `life` before the current install's): its
    /// store was wiped, and keeps its fixes pending for `verify` as the uninstall left them.
    private mutating func recordTold(
        _ heard: ToldBatch.Heard, batchID: UUIDv7, fixIDs: [UUIDv7], slot: Int, life: Int, at time: Int64
    ) {
        guard !fixIDs.isEmpty, !slots[slot].removed, life >= slots[slot].storage.installedAtLife else { return }
        do throws(StoreError) {
            try slots[slot].storage.store.record(ToldBatch(batchID: batchID, heard: heard, at: time, fixIDs: fixIDs))
        } catch {
            reportStoreError(error, slot: slot, at: time)
        }
    }

    /// Counts a server answer that took more than half the SDK's upload timeout once the warp is
    /// applied (at warp 60, a 250 ms answer is 15 virtual s), whether or not it came in time:
    /// such a run measures the warp, not the server. Modelled timing does not apply the warp.
    private mutating func noteSlowAnswer(serverMillis: Double) {
        guard case .asAnswered = clock.transferTiming else { return }
        guard serverMillis * clock.warp > Double(UploadRequest.timeoutMillis) / 2 else { return }
        metrics.slowAnswers += 1
        metrics.slowestAnswerMillis = max(metrics.slowestAnswerMillis, serverMillis)
    }

    /// What the device makes of a transport failure. The fleet counts each `NetworkFailure`
    /// under its own label; the SDK only needs to know no answer came, so a socket the process
    /// could not make (`tooManyOpenFiles`) or send from its address (`sourceAddress`) is, to the
    /// device, a connection that failed: it keeps the rows and backs off, as for a refusal.
    static func networkErrorKind(_ failure: NetworkFailure) -> NetworkErrorKind {
        switch failure {
        case .dns: .dns
        case .refused, .tooManyOpenFiles, .sourceAddress: .refused
        case .timeout: .timeout
        case .tls: .tls
        case .reset, .other, .cancelled: .reset
        }
    }

    /// What the device makes of its modelled network's failure: the SDK's own kind of it.
    static func networkErrorKind(_ failure: TransferOutcome.LinkFailure) -> NetworkErrorKind {
        switch failure {
        case .dns: .dns
        case .tls: .tls
        case .reset: .reset
        }
    }
}
