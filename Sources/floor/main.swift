// The benchmark's floor: the cost of starting any Swift command-line tool on this machine.
//
// It loads Foundation (as tweetcli does), touches it once so its runtime is initialised, and prints
// one line. tweetbench times it like every tweetcli command: no command can start faster than this.
import Foundation

print("floor: \(ProcessInfo.processInfo.processName) started with Foundation")
