// The benchmark's floor: the cost of starting any Swift command-line tool on this machine.
//
// It imports Foundation, touches it once so its runtime is initialised, and prints one line.
// Linked statically, it carries only the part of Foundation it uses (FoundationEssentials, as
// tweetcli does). tweetbench times it like every tweetcli command: no command can start faster.
import Foundation

print("floor: \(ProcessInfo.processInfo.processName) started with Foundation")
