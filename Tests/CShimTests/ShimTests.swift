import CCurl
import CMicroHTTPD
import CSQLite
import CZlib
import Foundation
import Testing

/// The shims' fixed-arity wrappers reach the real libraries: a libmicrohttpd daemon started
/// through MHD_OPTION_ARRAY answers a libcurl request configured through the setopt wrappers.
@Suite("C shims")
struct ShimTests {
    @Test("an MHD daemon started via MHD_OPTION_ARRAY on port 0 answers a curl request over loopback")
    func microhttpdAndCurl() throws {
        var options = [
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: 5, ptr_value: nil),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        let handler: MHD_AccessHandlerCallback = { _, connection, _, _, _, _, _, _ in
            let body = "beekon"
            let response = body.withCString { pointer in
                MHD_create_response_from_buffer(6, UnsafeMutableRawPointer(mutating: pointer), .RESPMEM_MUST_COPY)
            }
            let queued = MHD_queue_response(connection, UInt32(MHD_HTTP_OK), response)
            MHD_destroy_response(response)
            return queued
        }
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
        let started = options.withUnsafeMutableBufferPointer { buffer in
            beekon_mhd_start_daemon(UInt32(flags), 0, nil, nil, handler, nil, buffer.baseAddress)
        }
        let daemon = try #require(started)
        defer { MHD_stop_daemon(daemon) }
        let port = beekon_mhd_daemon_port(daemon)
        #expect(port != 0)

        let easy = try #require(curl_easy_init())
        defer { curl_easy_cleanup(easy) }
        #expect(beekon_curl_easy_setopt_string(easy, CURLOPT_URL, "http://127.0.0.1:\(port)/x") == CURLE_OK)
        #expect(beekon_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, 5000) == CURLE_OK)
        #expect(beekon_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1) == CURLE_OK)
        let sink: curl_write_callback = { _, size, count, _ in size * count }
        #expect(beekon_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, sink) == CURLE_OK)
        #expect(curl_easy_perform(easy) == CURLE_OK)
        var status = 0
        #expect(beekon_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK)
        #expect(status == 200)
        var downloaded: curl_off_t = 0
        #expect(beekon_curl_easy_getinfo_off_t(easy, CURLINFO_SIZE_DOWNLOAD_T, &downloaded) == CURLE_OK)
        #expect(downloaded == 6)
    }

    @Test("deflateInit2 through the shim makes a gzip stream")
    func zlibShim() {
        var stream = z_stream()
        #expect(beekon_deflateInit2(&stream, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK)
        #expect(deflateEnd(&stream) == Z_OK)
        #expect(beekon_inflateInit2(&stream, 31) == Z_OK)
        #expect(inflateEnd(&stream) == Z_OK)
    }

    @Test("SQLITE_TRANSIENT from the shim lets SQLite copy a bound string")
    func sqliteShim() throws {
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "SELECT ?1", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        do {
            let text = String("fix-" + "0190d4e2")
            #expect(beekon_sqlite3_bind_text_transient(statement, 1, text, -1) == SQLITE_OK)
        }
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        #expect(String(cString: sqlite3_column_text(statement, 0)) == "fix-0190d4e2")
        #expect(beekon_sqlite3_transient() != nil)
    }
}
