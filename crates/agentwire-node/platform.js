// The platform part of an addon's file name as napi-rs names it (`linux-x64-gnu`, `darwin-arm64`,
// `win32-x64-msvc`): `agentwire.<suffix>.node` beside index.js, or the package
// `@agentwire/node-<suffix>`.

/** Whether this Linux runs on musl rather than glibc (Alpine): glibc reports its version. */
const isMusl = () => {
  const report = process.report?.getReport();
  const header = typeof report === "string" ? JSON.parse(report).header : report?.header;
  return header?.glibcVersionRuntime === undefined;
};

/** The suffix of this process's platform and architecture. */
export const platformSuffix = () => {
  const { platform, arch } = process;
  switch (platform) {
    case "linux":
      return `linux-${arch}-${isMusl() ? "musl" : "gnu"}`;
    case "win32":
      return `win32-${arch}-msvc`;
    default:
      return `${platform}-${arch}`;
  }
};
