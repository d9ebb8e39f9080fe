import Foundation

// The start-up peer: a hello-world that imports Foundation (bench/startup.py).
print("Hello from \(ProcessInfo.processInfo.processName)")
