import GitWireCore

/// An HTTP transfer failed below HTTP: the host could not be reached, TLS failed, the connection
/// broke or timed out. The message is libcurl's, as git shows it:
/// `Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server`.
public struct HTTPTransferError: GitWireError, Hashable, Sendable {
    /// What went wrong, in kinds a caller can act on.
    public enum Reason: Hashable, Sendable {
        /// The host name did not resolve or no address accepted a connection.
        case connect
        /// The TLS handshake failed or the server's certificate was not trusted.
        case tls
        /// The transfer took longer than allowed.
        case timedOut
        /// The connection broke, or the server sent something that is not HTTP.
        case transfer
        /// libcurl could not be loaded or set up.
        case unavailable
    }

    /// What went wrong.
    public let reason: Reason
    /// libcurl's result code (0 when the failure was not libcurl's).
    public let code: Int
    /// The message, without the URL.
    public let message: String

    /// Makes an error.
    public init(reason: Reason, code: Int, message: String) {
        self.reason = reason
        self.code = code
        self.message = message
    }

    /// ``GitWireErrorKind/connect`` for connect and TLS failures, ``GitWireErrorKind/timedOut``,
    /// ``GitWireErrorKind/connectionLost`` for broken transfers, ``GitWireErrorKind/system`` when
    /// libcurl is missing.
    public var kind: GitWireErrorKind {
        switch reason {
        case .connect, .tls: .connect
        case .timedOut: .timedOut
        case .transfer: .connectionLost
        case .unavailable: .system
        }
    }

    /// The message.
    public var description: String { message }
}
