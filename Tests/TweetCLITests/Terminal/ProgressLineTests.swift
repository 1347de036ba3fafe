import Synchronization
import Testing
import TweetStore

@testable import TweetCLI

struct ProgressLineTests {
    /// A clock that moves only when told, and what the line wrote.
    final class Recorder: Sendable {
        let time = Mutex(100.0)
        let written = Mutex<[String]>([])

        func line(shown: Bool = true, width: Int = 200, unit: String = "tweets") -> ProgressLine {
            ProgressLine(
                "Seeding", unit: unit, shown: shown, width: width, clock: { self.time.withLock { $0 } },
                write: { text in self.written.withLock { $0.append(text) } })
        }

        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
        var writes: [String] { written.withLock { $0 } }
    }

    @Test func aKnownTotalGivesTheCountTheRateAndTheTimeLeft() {
        let text = ProgressLine.text(
            "Seeding", unit: "tweets", WorkProgress(done: 120_000, total: 300_000), elapsed: 22.2)
        #expect(text == "Seeding: 120,000 of 300,000 tweets · 5,405/s · 34 s left")
    }

    @Test func aShareWithoutATotalShowsItsPercentageAndTheTimeLeft() {
        let text = ProgressLine.text(
            "Seeding", unit: "documents", WorkProgress(done: 50_000, fraction: 0.25), elapsed: 10)
        #expect(text == "Seeding: 50,000 documents · 5,000/s · 25% · 30 s left")
    }

    @Test func anUnknownTotalShowsTheCountAndTheRateWithoutTimeLeft() {
        let text = ProgressLine.text("Exporting", unit: "documents", WorkProgress(done: 1_234_567), elapsed: 2)
        #expect(text == "Exporting: 1,234,567 documents · 617,284/s")
    }

    @Test func theFirstMomentsShowOnlyTheCount() {
        let text = ProgressLine.text("Importing", unit: "documents", WorkProgress(done: 900, total: 10), elapsed: 0.2)
        #expect(text == "Importing: 900 of 10 documents")
    }

    @Test func theLastStepSaysTheStoreIsBeingWritten() {
        let text = ProgressLine.text(
            "Seeding", unit: "documents", WorkProgress(done: 812_345, isFinishing: true), elapsed: 40)
        #expect(text == "Seeding: writing 812,345 documents to the store…")
    }

    @Test(arguments: [
        (0.2, "1 s left"), (59, "59 s left"), (60, "1 min 0 s left"), (245, "4 min 5 s left"),
        (7_800, "2 h 10 min left"),
    ])
    func timeLeftIsInSecondsThenMinutesThenHours(seconds: Double, expected: String) {
        #expect(ProgressLine.timeLeft(seconds) == expected)
    }

    @Test(arguments: [(0, "0"), (999, "999"), (1_000, "1,000"), (300_000, "300,000"), (-12_345, "-12,345")])
    func countsAreGroupedInThousands(number: Int, expected: String) {
        #expect(ProgressLine.grouped(number) == expected)
    }

    @Test func redrawsComeAtMostTenTimesASecondAndRewriteTheLineInPlace() {
        let recorder = Recorder()
        let line = recorder.line()
        line.update(WorkProgress(done: 1, total: 100))
        recorder.advance(0.05)
        line.update(WorkProgress(done: 2, total: 100))
        recorder.advance(0.06)
        line.update(WorkProgress(done: 3, total: 100))
        #expect(recorder.writes == ["\r\u{1B}[KSeeding: 1 of 100 tweets", "\r\u{1B}[KSeeding: 3 of 100 tweets"])
        line.clear()
        line.clear()
        #expect(recorder.writes.last == "\r\u{1B}[K")
        #expect(recorder.writes.count == 3)
    }

    @Test func theLastStepIsDrawnHoweverSoonItComes() {
        let recorder = Recorder()
        let line = recorder.line(unit: "documents")
        line.update(WorkProgress(done: 1))
        line.update(WorkProgress(done: 5, isFinishing: true))
        #expect(recorder.writes.last == "\r\u{1B}[KSeeding: writing 5 documents to the store…")
    }

    @Test func aLineNotShownWritesNothingNotEvenItsClearing() {
        let recorder = Recorder()
        let line = recorder.line(shown: false)
        line.update(WorkProgress(done: 1, total: 100))
        line.update(WorkProgress(done: 5, isFinishing: true))
        line.clear()
        #expect(recorder.writes.isEmpty)
    }

    @Test func aLineWiderThanTheTerminalIsCutSoItNeverWraps() {
        let recorder = Recorder()
        let line = recorder.line(width: 20)
        line.update(WorkProgress(done: 120_000, total: 300_000))
        #expect(recorder.writes == ["\r\u{1B}[KSeeding: 120,000 of"])
    }
}
