/// How `run` exits, as k6 and ArgumentParser do: 0 every threshold met, 99 one failed, 64 a
/// usage or fleet-file error, 1 the run could not go on.
public enum RunExit {
    public static let thresholdFailed: Int32 = 99
}
