import GitWireCore

// The channel as the transports' Connection: starting, sending and closing, and the standard
// error of a child process read beside its output.

extension StreamChannel: Connection {
    /// The last lines the child wrote on its standard error.
    package var standardErrorLines: [String] { errorLines.lines }

    /// Bytes queued by ``send(_:)`` and not yet written.
    package var queuedByteCount: Int { (writeEnd ?? self).queuedBytes }

    /// Joins the loop given when the connection was made and opens: a TCP connect starts, a
    /// child's pipes are open at once. `connectionDidOpen` follows in the loop.
    package func start(handler: any ConnectionHandler) {
        guard let loop, !isStarted, !isClosed else { return }
        isStarted = true
        self.handler = handler
        loop.register(self)
        if let writeEnd {
            writeEnd.loop = loop
            loop.register(writeEnd)
        }
        if let errorEnd {
            errorEnd.loop = loop
            errorEnd.isReading = true
            loop.register(errorEnd)
        }
        if let process, let onExit {
            exitWatch = process.watchExit(in: loop) { [weak self] code in
                self?.childDidExit()
                onExit(code)
            }
        }
        if connector == nil {
            connectionDidOpen(in: loop)
        } else {
            startConnecting(in: loop)
        }
    }

    func connectionDidOpen(in loop: EpollRunLoop) {
        guard !isClosed, !hasFailed else { return }
        isConnectionOpen = true
        isReading = true
        loop.updateInterest(self)
        loop.enqueue { [weak self] in
            guard let self, !self.isClosed else { return }
            self.handler?.connectionDidOpen(self)
        }
        let writer = writeEnd ?? self
        if writer.queuedBytes > 0 {
            loop.updateInterest(writer)
        } else if writer.closesWhenDrained {
            writer.closeWriting()
        } else {
            writer.announceDrain(in: loop)
        }
    }

    /// Queues `bytes`; they are written at once if the descriptor takes them, else as it does.
    package func send(_ bytes: [UInt8]) {
        let writer = writeEnd ?? self
        guard !isClosed, !hasFailed, !isSendingFinished, !writer.closesWhenDrained, writer.openStreams > 0 else {
            if !isClosed { connectionFail(StreamError.closed, stopsReading: false) }
            return
        }
        guard !bytes.isEmpty else { return }
        let wasEmpty = writer.queuedBytes == 0
        writer.enqueue(bytes)
        guard isConnectionOpen, let loop else { return }
        if wasEmpty { writer.flushDriven(in: loop, announce: false) }
        loop.updateInterest(writer)
    }

    /// Whether the connection is a child process's pipes (its standard input apart from its
    /// standard output), not a socket.
    package var isChildProcess: Bool { writeEnd != nil }

    /// Closes the sending direction once every byte queued is written (at once if none is), while
    /// the connection is still read: a child's standard input closes, so it reads the end of its
    /// input; a socket's writing side is shut down. Sending after this fails the connection.
    package func finishSending() {
        guard !isClosed, !isSendingFinished else { return }
        isSendingFinished = true
        let writer = writeEnd ?? self
        writer.closesWhenDrained = true
        if isConnectionOpen, writer.queuedBytes == 0 { writer.closeWriting() }
    }

    /// Closes the connection; bytes already queued (a farewell flush) still go out, for up to
    /// five seconds if the peer is slow to take them. A child is reaped on the loop, and its
    /// standard error read on until it ends (for as long as the child is given to end).
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        handler = nil
        heldEnd = nil
        isReading = false
        let loop = self.loop
        let writer = writeEnd ?? self
        // The reading direction closes now (a child's standard output at once; a socket closes
        // when its writing direction has too), the writing one once its queue is written.
        streamDidClose(reading: true)
        if writer.queuedBytes == 0 || !isConnectionOpen || loop == nil || writer.openStreams <= 0 {
            writer.closeWriting()
        } else {
            writer.closesWhenDrained = true
            loop?.addTimer(after: .seconds(5)) { _ in writer.closeWriting() }
        }
        guard let loop else {
            errorEnd?.closeWriting()
            errorEnd = nil
            process?.reap()
            return
        }
        if let exitWatch {
            exitWatch.end(after: .seconds(5), terminatingFirst: true)
            self.exitWatch = nil
        } else {
            process?.reap(in: loop)
        }
        if errorEnd != nil {
            keptAlive = self
            graceTimer?.invalidate()
            graceTimer = loop.addTimer(after: .seconds(6)) { [weak self] _ in self?.standardErrorEnded() }
        }
    }

    /// Ends a child that started with an ``onExit`` now: `SIGTERM`, and `SIGKILL` a second later
    /// if it still runs; it is reaped on the loop and ``onExit`` follows. Nothing once it has
    /// exited, or for a connection that is not a child.
    package func terminateChild() {
        guard let process, !childHasExited else { return }
        process.terminate()
        exitWatch?.end(after: .seconds(1), terminatingFirst: false)
    }

    /// Closes the writing direction (once): its queue is dropped.
    func closeWriting() {
        guard openStreams > 0 else { return }
        closesWhenDrained = false
        discardQueued()
        streamDidClose(reading: false)
    }

    /// Writes what is queued; an emptied queue closes the direction if it is closing, or is
    /// announced (`connectionDidDrain`) when `announce` is true.
    func flushDriven(in loop: EpollRunLoop, announce: Bool) {
        switch flushQueue() {
        case .blocked: return
        case .failed(let error):
            // What the peer sent before it stopped taking bytes is still read.
            (owner ?? self).connectionFail(error, stopsReading: false)
        case .drained:
            if closesWhenDrained {
                closeWriting()
            } else if announce {
                announceDrain(in: loop)
            }
        }
    }

    private func announceDrain(in loop: EpollRunLoop) {
        loop.enqueue { [weak self] in
            guard let self, let connection = self.owner ?? (self.isConnection ? self : nil), !connection.isClosed
            else { return }
            connection.handler?.connectionDidDrain(connection)
        }
    }

    /// Reads once what is there: bytes go to the handler now; the end and failures follow in
    /// the loop. A child's standard error goes to ``readStandardError()``.
    func readDriven(in loop: EpollRunLoop) {
        if let owner {
            owner.readStandardError()
            return
        }
        guard isConnection else {
            // A child's standard error whose connection is gone.
            isReading = false
            streamDidClose(reading: true)
            return
        }
        do {
            guard case .done(let bytes) = try readOnce(maxCount: 64 * 1024) else { return }
            if bytes.isEmpty {
                isReading = false
                loop.enqueue { [weak self] in
                    self?.afterStandardError { [weak self] in
                        guard let self else { return }
                        self.handler?.connectionDidEnd(self)
                    }
                }
            } else {
                handler?.connection(self, didReceive: bytes)
            }
        } catch {
            connectionFail(error)
        }
    }

    /// A child's standard input or error channel failed.
    func endFailed(_ end: StreamChannel, _ error: any Error) {
        if end === errorEnd {
            standardErrorEnded()
        } else {
            connectionFail(error, stopsReading: false)
        }
    }

    /// The connection failed: the handler hears it in the loop, after the child's standard error.
    /// Reading stops unless only writing failed (`stopsReading` false).
    func connectionFail(_ error: any Error, stopsReading: Bool = true) {
        if stopsReading { isReading = false }
        guard !hasFailed, !isClosed else { return }
        hasFailed = true
        guard let loop else { return }
        loop.updateInterest(self)
        loop.enqueue { [weak self] in
            self?.afterStandardError { [weak self] in
                guard let self else { return }
                self.handler?.connection(self, didFail: error)
            }
        }
    }

    private func readStandardError() {
        guard let errorEnd else { return }
        let bytes: [UInt8]
        do {
            guard case .done(let read) = try errorEnd.readOnce(maxCount: 64 * 1024) else { return }
            bytes = read
        } catch {
            bytes = []
        }
        if bytes.isEmpty {
            standardErrorEnded()
            return
        }
        errorLines.append(bytes)
        errorOutput.forward?(bytes)
        onStandardError?(bytes)
    }

    /// The exit watch reaped the child: all it wrote on its standard error is in the pipe now. A
    /// pipe still open is held by a process it left behind (a helper's daemon), which an end the
    /// handler waits for no longer waits on: what the pipe holds is read and the end delivered.
    private func childDidExit() {
        childHasExited = true
        if heldEnd != nil { drainStandardError() }
    }

    /// Reads what the child's standard error pipe holds now, then ends it.
    private func drainStandardError() {
        while let errorEnd, case .done(let bytes)? = try? errorEnd.readOnce(maxCount: 64 * 1024), !bytes.isEmpty {
            errorLines.append(bytes)
            errorOutput.forward?(bytes)
            onStandardError?(bytes)
        }
        standardErrorEnded()
    }

    private func standardErrorEnded() {
        if let errorEnd {
            errorEnd.isReading = false
            errorEnd.streamDidClose(reading: true)
        }
        errorEnd = nil
        errorLines.finish()
        graceTimer?.invalidate()
        graceTimer = nil
        let held = heldEnd
        heldEnd = nil
        held?()
        keptAlive = nil
    }

    /// Runs `deliver` once the child's standard error has ended (at once without one), or after
    /// ``standardErrorGrace``; once the child has exited (with ``onExit``), after what the pipe
    /// holds is read.
    private func afterStandardError(_ deliver: @escaping () -> Void) {
        guard errorEnd != nil, let loop else {
            deliver()
            return
        }
        guard heldEnd == nil else { return }
        heldEnd = deliver
        if childHasExited {
            drainStandardError()
            return
        }
        graceTimer = loop.addTimer(after: Self.standardErrorGrace) { [weak self] _ in
            guard let self else { return }
            self.graceTimer = nil
            let held = self.heldEnd
            self.heldEnd = nil
            held?()
        }
    }
}
