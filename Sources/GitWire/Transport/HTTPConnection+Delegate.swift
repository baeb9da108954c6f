// HTTPConnection as libcurl's transfers report to it: response heads, body bytes, the end of
// each request (redirects, authentication, errors, the next queued request).

extension HTTPConnection {
    func transfer(_ transfer: HTTPTransfer, didReceive head: HTTPResponseHead) {
        guard transfer === current, let sent else { return }
        if head.authSchemesOffered != 0 && (head.status == 401 || sent.credential != nil) {
            authSchemes = (sent.location.origin, head.authSchemesOffered)
        }
        // A streamed body cannot be sent again: its redirect is an error like any other status.
        let follows =
            sent.source == nil
            && (options.followRedirects == .always || (options.followRedirects == .initial && currentIsDiscovery))
        if follows, [301, 302, 303, 307, 308].contains(head.status), let target = head.value(of: "Location") {
            // Followed once this answer's body is read (the connection stays reusable).
            redirect = target
            return
        }
        (handler as? any HTTPConnectionObserver)?.connection(
            self, didReceiveHTTPResponse: "\(head.status) \(head.value(of: "Content-Type") ?? "-")")
        guard head.status == 200 else {
            failedHead = head
            return
        }
        let contentType = head.value(of: "Content-Type")
        if currentIsDiscovery {
            guard SmartHTTP.contentType(contentType, is: SmartHTTP.advertisementType(request.service)) else {
                fail(HTTPError(.dumbServer, url: displayURL))
                return
            }
            do {
                if let moved = try session?.discoverySucceeded() { options.warning?("redirecting to \(moved)") }
            } catch let error as SmartHTTP.Session.BadRedirect {
                fail(HTTPError(.badRedirect(error.target), url: error.asked))
                return
            } catch {
                fail(error)
                return
            }
        } else if probing != nil {
            // The probe's answer is read and dropped (git looks at its status only).
            return
        } else if !SmartHTTP.contentType(contentType, is: SmartHTTP.resultType(request.service)) {
            fail(HTTPError(.unexpectedContentType(contentType), url: displayURL))
            return
        }
        passing = true
    }

    func transfer(_ transfer: HTTPTransfer, didReceive bytes: [UInt8]) {
        guard transfer === current else { return }
        if passing {
            do {
                guard currentIsDiscovery else {
                    handler?.connection(self, didReceive: bytes)
                    return
                }
                let passed = try preamble.take(bytes)
                let inside = advertisementEnd.count(in: passed)
                if inside > 0 {
                    handler?.connection(self, didReceive: inside == passed.count ? passed : Array(passed[..<inside]))
                }
                if inside < passed.count, transfer === current, !isClosed {
                    // The advertisement ended and the server goes on: what follows answers no
                    // request (git reads past it too, or takes it for the next answer). Nothing
                    // more is read; the session goes on as if the answer had ended there.
                    transfer.cancel()
                    self.transfer(transfer, didFinishWith: nil)
                }
            } catch {
                fail(error)
            }
        } else if errorBody.count < Self.errorBodyLimit {
            errorBody += bytes.prefix(Self.errorBodyLimit - errorBody.count)
        }
    }

    func transfer(_ transfer: HTTPTransfer, didFinishWith error: HTTPTransferError?) {
        guard transfer === current, !isClosed, let sent else { return }
        current = nil
        if let error {
            fail(HTTPError(.transfer(error), url: displayURL))
            return
        }
        if let failedHead {
            failed(failedHead, sent: sent)
            return
        }
        approveIfAccepted(sent)
        if redirect == nil, let next = probing {
            probing = nil
            startStreamedRequest(next)
            return
        }
        if let redirect, !currentIsDiscovery {
            followPostRedirect(sent, to: redirect)
            return
        }
        if let redirect {
            do {
                try session?.redirect(to: redirect)
            } catch {
                switch error {
                case .tooMany:
                    let limit = SmartHTTP.Session.maximumRedirects
                    let tooMany = HTTPTransferError(
                        reason: .transfer, code: 47, message: "Maximum (\(limit)) redirects followed")
                    fail(HTTPError(.transfer(tooMany), url: displayURL))
                case .unsupported(let target):
                    fail(HTTPError(.badRedirect(target), url: displayURL))
                }
                return
            }
            if let session { startDiscovery(session.discovery, announced: false) }
            return
        }
        if currentIsDiscovery {
            do {
                try preamble.checkAtEnd()
            } catch {
                fail(error)
                return
            }
            discovered = true
        }
        if queued.isEmpty {
            handler?.connectionDidEnd(self)
        } else {
            startNextRequest()
        }
    }

    /// A `POST` was redirected (``HTTPRedirects/always``): sent again, body and all, where the
    /// `Location` leads, with the credential of that origin if any; the repository stays.
    func followPostRedirect(_ sent: SentRequest, to target: String) {
        var next = sent
        next.redirects += 1
        guard next.redirects <= SmartHTTP.Session.maximumRedirects else {
            let limit = SmartHTTP.Session.maximumRedirects
            let tooMany = HTTPTransferError(
                reason: .transfer, code: 47, message: "Maximum (\(limit)) redirects followed")
            fail(HTTPError(.transfer(tooMany), url: displayURL))
            return
        }
        guard let resolved = SmartHTTP.resolveRedirect(target, against: sent.location.url),
            let location = try? SmartHTTP.Location(resolved)
        else {
            fail(HTTPError(.badRedirect(target), url: displayURL))
            return
        }
        next.location = location
        start(next, announced: false)
    }

    /// A request that carried the helpers' credential was accepted: they are told so, once.
    func approveIfAccepted(_ sent: SentRequest) {
        guard options.usesCredentialHelper,
            let accepted = session?.accepted(sent.credential, at: sent.location.origin)
        else { return }
        let reported = sent.location.helperQuery(accepted)
        guard let loop else { return }
        GitCredentialHelper.report(reported, approved: true, environment: options.credentialEnvironment, in: loop)
    }

    func failed(_ head: HTTPResponseHead, sent: SentRequest) {
        let message = serverMessage(head)
        switch head.status {
        case 401 where sent.source != nil:
            // Refused although the probe was let through: the body cannot be sent twice.
            fail(HTTPError(.authenticationFailed, url: displayURL, serverMessage: message))
        case 401:
            guard var session else { return }
            let action = session.unauthorized(at: sent.location, helperAllowed: options.usesCredentialHelper)
            self.session = session
            switch action {
            case .askHelper(let location, let username):
                askForCredentials(for: location, username: username, retrying: sent)
            case .fail(let rejected):
                if let rejected, let loop {
                    GitCredentialHelper.report(
                        sent.location.helperQuery(rejected), approved: false,
                        environment: options.credentialEnvironment, in: loop)
                }
                fail(HTTPError(.authenticationFailed, url: displayURL, serverMessage: message))
            }
        case 404 where currentIsDiscovery:
            fail(HTTPError(.repositoryNotFound, url: displayURL, serverMessage: message))
        default:
            fail(HTTPError(.status(head.status), url: displayURL, serverMessage: message))
        }
    }

    /// The error body as git shows it: only `text/plain`, control characters masked (see
    /// `maskedForTerminal`), trailing white space dropped.
    func serverMessage(_ head: HTTPResponseHead) -> String? {
        guard SmartHTTP.contentType(head.value(of: "Content-Type"), is: "text/plain"), !errorBody.isEmpty else {
            return nil
        }
        var text = String(decoding: maskedForTerminal(errorBody), as: UTF8.self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text.isEmpty ? nil : text
    }

    /// Asks the credential helpers about `location`'s origin, then sends `retrying` again.
    func askForCredentials(for location: SmartHTTP.Location, username: String?, retrying: SentRequest) {
        guard let loop else { return }
        let wanted = location.helperQuery(username: username)
        credentialCall = GitCredentialHelper.fill(wanted, environment: options.credentialEnvironment, in: loop) {
            [weak self] result in
            guard let self, !self.isClosed else { return }
            self.credentialCall = nil
            switch result {
            case .success(let filled):
                self.session?.helperAnswered(username: filled.username, password: filled.password, for: location)
                self.start(retrying, announced: true)
            case .failure(let error):
                self.fail(error)
            }
        }
    }

    func fail(_ error: any Error) {
        cancelRequests()
        let handler = self.handler
        self.handler = nil
        handler?.connection(self, didFail: error)
    }

    /// A request body gzip-compressed as git's `post_rpc` compresses it (`Z_BEST_COMPRESSION`),
    /// so that the size `fetch -v` announces is git's.
    func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        try Deflater(gzipLevel: 9).deflateWhole(bytes[...])
    }
}
