/// The zero-copy path of plain HTTP: body bytes move socket → pipe → file with `splice`.
extension SegmentWorker {
    /// Bytes a splice pipe holds: each fill and drain moves up to this much. With 128 KiB
    /// (the read buffer's size), 16 connections spent a third of their CPU taking the file's
    /// inode lock and switching threads for small writes; 1 MiB is the default largest pipe an
    /// unprivileged process may ask for. A pipe the kernel will not grow keeps its 64 KiB.
    static let pipeCapacity = 1024 * 1024

    /// Moves up to `limit` body bytes socket → pipe → file; returns how many (0 at the end of
    /// the stream). Where `splice` is refused (EINVAL), splicing is turned off for this worker
    /// and one buffer is copied instead.
    func splice(
        from socket: Socket, through pipe: SplicePipe, _ connection: HTTPConnection,
        segment: Segment, at offset: Int64, limit: Int64
    ) throws -> Int {
        let count: Int
        do {
            count = try pipe.fill(from: socket, limit: Int(min(Int64(pipe.capacity), limit)))
        } catch let error where error.errno == Errno.invalidArgument || error.errno == Errno.noFunction {
            self.pipe = nil
            let want = Int(min(Int64(buffer.count), limit))
            let read = try connection.readBody(
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]),
                deadline: transfer.requester.ioDeadline)
            guard read > 0 else { return 0 }
            try confirmOwnership(connection)
            // As on the copying path: a steal that landed during the read leaves only the
            // bytes below the new end to this worker; the rest are the thief's to write.
            let usable = Int(min(Int64(read), max(0, segment.end.load(ordering: .acquiring) - offset)))
            if usable > 0 {
                try transfer.output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<usable]), at: offset)
            }
            if usable < read {
                connection.invalidate()
                connection.shutdown()
            }
            return usable
        } catch {
            connection.invalidate()
            throw error
        }
        guard count > 0 else { return 0 }
        connection.consumedSplicedBody(count)
        if pendingCommit != nil {
            do {
                try confirmOwnership(connection)
            } catch {
                self.pipe = try? SplicePipe(capacity: SegmentWorker.pipeCapacity) // it holds bytes that are not ours
                throw error
            }
        }
        // A steal that landed during the fill: only the bytes below the new end are ours.
        let usable = Int(min(Int64(count), max(0, segment.end.load(ordering: .acquiring) - offset)))
        do {
            if usable > 0 { try transfer.output.write(from: pipe, at: offset, count: usable) }
        } catch {
            // The pipe may still hold bytes of this response: it cannot be reused.
            self.pipe = nil
            connection.invalidate()
            throw error
        }
        if usable < count {
            // The rest is another segment's; this pipe still holds it, so it goes.
            self.pipe = try? SplicePipe(capacity: SegmentWorker.pipeCapacity)
            connection.invalidate()
            connection.shutdown()
        }
        return usable
    }
}
