internal import CCurl
import Foundation

/// A libcurl result code that is not success, with libcurl's words for it.
///
/// Every easy, multi and share call that can fail is checked through one of the `check`
/// functions below, so C codes never leak past the `Curl*` owners.
public struct CurlError: Error, RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// Which libcurl interface the code came from: the three have separate code spaces.
    public enum Interface: String, Sendable, Hashable {
        /// `CURLcode`, from an easy handle or a finished transfer.
        case easy
        /// `CURLMcode`, from the multi handle.
        case multi
        /// `CURLSHcode`, from a share handle.
        case share
    }

    /// The numeric code within `interface`'s code space.
    public let rawValue: Int32
    /// The interface whose code space `rawValue` belongs to.
    public let interface: Interface
    /// libcurl's description of the code, or a more specific message when we had one.
    public let message: String

    /// An easy-interface (`CURLcode`) error with libcurl's description.
    public init(rawValue: Int32) {
        self.init(rawValue, interface: .easy)
    }

    init(_ rawValue: Int32, interface: Interface, message: String? = nil) {
        self.rawValue = rawValue
        self.interface = interface
        switch interface {
        case .easy:
            self.message =
                message ?? String(cString: curl_easy_strerror(CURLcode(UInt32(bitPattern: rawValue))))
        case .multi:
            self.message = message ?? String(cString: curl_multi_strerror(CURLMcode(rawValue)))
        case .share:
            self.message =
                message ?? String(cString: curl_share_strerror(CURLSHcode(UInt32(bitPattern: rawValue))))
        }
    }

    /// `curl easy: <message> (code N)`.
    public var description: String { "curl \(interface.rawValue): \(message) (code \(rawValue))" }

    /// CURLE_COULDNT_RESOLVE_HOST: the host name did not resolve.
    public static let couldNotResolveHost = CurlError(rawValue: 6)
    /// CURLE_COULDNT_CONNECT: nothing accepted the connection.
    public static let couldNotConnect = CurlError(rawValue: 7)
    /// CURLE_PARTIAL_FILE: the body ended before its announced length.
    public static let partialFile = CurlError(rawValue: 18)
    /// CURLE_WRITE_ERROR: the body was refused (over `maxResponseBytes`).
    public static let writeError = CurlError(rawValue: 23)
    /// CURLE_OPERATION_TIMEDOUT: the request's or the connect timeout passed.
    public static let operationTimedOut = CurlError(rawValue: 28)
    /// CURLE_SSL_CONNECT_ERROR: the TLS handshake failed.
    public static let sslConnectError = CurlError(rawValue: 35)
    /// CURLE_GOT_NOTHING: the server closed the connection without answering.
    public static let gotNothing = CurlError(rawValue: 52)
    /// CURLE_SEND_ERROR: sending failed (connection reset).
    public static let sendError = CurlError(rawValue: 55)
    /// CURLE_RECV_ERROR: receiving failed (connection reset).
    public static let receiveError = CurlError(rawValue: 56)
    /// CURLE_PEER_FAILED_VERIFICATION: the server's certificate was not trusted.
    public static let peerFailedVerification = CurlError(rawValue: 60)

    static func check(_ code: CURLcode) throws(CurlError) {
        guard code == CURLE_OK else { throw CurlError(Int32(bitPattern: code.rawValue), interface: .easy) }
    }

    static func check(_ code: CURLMcode) throws(CurlError) {
        guard code == CURLM_OK else { throw CurlError(code.rawValue, interface: .multi) }
    }

    static func check(_ code: CURLSHcode) throws(CurlError) {
        guard code == CURLSHE_OK else { throw CurlError(Int32(bitPattern: code.rawValue), interface: .share) }
    }

    /// The kind of network failure a finished transfer's code stands for, given the last
    /// `errno` libcurl saw for it (`CURLINFO_OS_ERRNO`): a connection that failed because no
    /// socket could be made is not a refusal.
    func networkFailure(osErrno: Int32) -> NetworkFailure {
        guard interface == .easy else { return .other }
        switch CURLcode(UInt32(bitPattern: rawValue)) {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .dns
        case CURLE_COULDNT_CONNECT:
            // connect() says EINVAL only for a bound address with no route to the server.
            if osErrno == EINVAL { return .sourceAddress }
            return osErrno == EMFILE || osErrno == ENFILE ? .tooManyOpenFiles : .refused
        case CURLE_INTERFACE_FAILED:
            return .sourceAddress
        case CURLE_ABORTED_BY_CALLBACK:
            // Only the body's reader aborts, at `OutboundRequest.abortAfterBytes`: a reset.
            return .reset
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            return .tls
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return .reset
        default:
            return .other
        }
    }
}
