/// Single-stream mode: the whole body in one response, for a server without ranges.
extension SegmentWorker {
    /// One GET of the whole body (the probe's own answer when it was one), written from byte 0.
    func fetchWhole(_ progress: Segment) throws -> Int64 {
        url = transfer.url
        let connection: HTTPConnection
        let head: ResponseHead
        if let opened = transfer.takeOpened(ranged: false) {
            // The probe's GET, answered with the whole file: read it from here.
            (connection, head) = (opened.connection, opened.head)
            transfer.control.connections.track(id, connection)
        } else {
            let request = transfer.requester.request("GET", url)
            (connection, head) = try transfer.requester.send(request) { transfer.control.connections.track(id, $0) }
        }
        defer { transfer.control.connections.track(id, nil) }
        slot.enterBody()
        defer { slot.leaveBody() }
        guard (200...299).contains(head.status), head.status != 206, !FastgetError.isNoContent(head.status) else {
            connection.shutdown()
            throw FastgetError.status(head, url: url)
        }
        transfer.noticeEncoding(head)
        let expected = try streamLength(head, connection: connection)
        var offset: Int64 = 0
        while true {
            var want = buffer.count
            if let limiter = transfer.limiter {
                want = limiter.take(upTo: want) { transfer.control.isStopped }
                if want == 0 { throw FastgetError(.cancelled, transfer.control.stopReason) }
            }
            let count = try connection.readBody(
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]),
                deadline: transfer.requester.ioDeadline)
            transfer.limiter?.giveBack(want - count)
            if count == 0 { break }
            if let expected, offset + Int64(count) > expected {
                connection.shutdown()
                throw FastgetError(.protocolViolation, "server sent more than the \(expected) bytes it announced (\(url))")
            }
            try transfer.output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: offset)
            offset += Int64(count)
            progress.written.store(offset, ordering: .releasing)
            slot.bytes.add(Int64(count), ordering: .relaxed)
            tick?()
        }
        // A body that runs to the close cannot tell a dropped connection from its end; a known
        // length can. Short is a failed attempt (the retry starts over), never a complete file.
        if let expected, offset < expected {
            throw TransferError.truncatedBody(received: offset, expected: expected)
        }
        transfer.control.connections.track(id, nil) // parked, it may serve another download
        transfer.requester.pool.park(connection)
        return offset
    }

    /// The length a single stream's body must have, when anyone said: the response's
    /// Content-Length, else the probe's. A response announcing another length than the probe
    /// found means the file changed in between: the download starts over.
    private func streamLength(_ head: ResponseHead, connection: HTTPConnection) throws -> Int64? {
        let announced = head.hasTransferEncoding ? nil : head.contentLength
        guard let probed = transfer.resource.length else { return announced }
        if let announced, announced != probed {
            connection.shutdown()
            let error = FastgetError(.protocolViolation, "the file changed on the server (it is \(announced) bytes now, not \(probed))")
            transfer.control.failBecauseChanged(error)
            throw error
        }
        return probed
    }
}
