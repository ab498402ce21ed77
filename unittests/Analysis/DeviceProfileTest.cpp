//===- DeviceProfileTest.cpp - Device profiles and sizes from text --------===//
//
// The syntax of --device and --budget: built-in profiles, overrides, custom
// devices, byte sizes with decimal and binary units, and the errors for
// everything else.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/DeviceProfile.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace memopt;

namespace {

/// The error message of a failed parse ("" when it succeeded).
template <typename T>
std::string errorOf(llvm::Expected<T> result) {
  if (result)
    return "";
  return llvm::toString(result.takeError());
}

TEST(ByteSize, UnitsAndNumbers) {
  EXPECT_EQ(cantFail(parseByteSize("1073741824")), 1073741824u);
  EXPECT_EQ(cantFail(parseByteSize("8GiB")), 8ull << 30);
  EXPECT_EQ(cantFail(parseByteSize("750MB")), 750000000u);
  EXPECT_EQ(cantFail(parseByteSize("1.5GB")), 1500000000u);
  EXPECT_EQ(cantFail(parseByteSize("2KiB")), 2048u);
  EXPECT_EQ(cantFail(parseByteSize("3KB")), 3000u);
  EXPECT_EQ(cantFail(parseByteSize("4MiB")), 4u << 20);
  EXPECT_EQ(cantFail(parseByteSize("1TiB")), 1ull << 40);
  EXPECT_EQ(cantFail(parseByteSize("1TB")), 1000000000000u);
  EXPECT_EQ(cantFail(parseByteSize("512B")), 512u);
  EXPECT_EQ(cantFail(parseByteSize("0")), 0u);
}

TEST(ByteSize, RejectsWhatIsNotASize) {
  for (const char *bad : {"-1GB", "8XB", "8 gib", "GiB", "", "1e400", "8GiBs",
                          "1.2.3MB", "eight"})
    EXPECT_NE(errorOf(parseByteSize(bad)).find("expected a size such as "
                                               "8GiB, 750MB"),
              std::string::npos)
        << bad;
  EXPECT_EQ(errorOf(parseByteSize("-1GB")),
            "expected a size such as 8GiB, 750MB, 1.5GB or 1073741824 (units "
            "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), got '-1GB'");
}

TEST(DeviceProfile, BuiltinProfiles) {
  for (llvm::StringRef name : builtinDeviceNames()) {
    DeviceProfile profile = cantFail(parseDeviceProfile(name));
    EXPECT_EQ(profile.name, name.str());
    EXPECT_GT(profile.memoryBytes, 0u);
    EXPECT_GT(profile.fp32Flops, 0);
    EXPECT_GT(profile.memoryBandwidth, 0);
    EXPECT_GT(profile.linkBandwidth, 0);
  }
  DeviceProfile rtx = cantFail(parseDeviceProfile("rtx2060"));
  EXPECT_EQ(rtx.memoryBytes, 8ull << 30);
  EXPECT_DOUBLE_EQ(rtx.fp32Flops, 6.45e12);
  EXPECT_DOUBLE_EQ(rtx.memoryBandwidth, 336e9);
  DeviceProfile h100 = cantFail(parseDeviceProfile("h100"));
  EXPECT_EQ(h100.memoryBytes, 80ull << 30);
  EXPECT_DOUBLE_EQ(h100.bf16Flops, 989.4e12);
}

TEST(DeviceProfile, Overrides) {
  DeviceProfile p = cantFail(parseDeviceProfile(
      "rtx2060,memory=6GiB,fp32=7T,bandwidth=1.5TB/s,link=12GiB/s,"
      "launch=2us,fp16=800G,bf16=6.5e12,tf32=1P,lean=1.5"));
  EXPECT_EQ(p.name, "rtx2060");
  EXPECT_EQ(p.memoryBytes, 6ull << 30);
  EXPECT_DOUBLE_EQ(p.fp32Flops, 7e12);
  EXPECT_DOUBLE_EQ(p.memoryBandwidth, 1.5e12);
  EXPECT_DOUBLE_EQ(p.linkBandwidth, 12.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(p.launchSeconds, 2e-6);
  EXPECT_DOUBLE_EQ(p.fp16Flops, 800e9);
  EXPECT_DOUBLE_EQ(p.bf16Flops, 6.5e12);
  EXPECT_DOUBLE_EQ(p.tf32Flops, 1e15);
  EXPECT_DOUBLE_EQ(p.leanSlowdown, 1.5);
  // Every profile charges lean workspaces twice their roofline time
  // unless told otherwise.
  EXPECT_DOUBLE_EQ(cantFail(parseDeviceProfile("a100-40g")).leanSlowdown, 2);
}

TEST(DeviceProfile, Custom) {
  DeviceProfile p = cantFail(parseDeviceProfile(
      "custom,memory=8GiB,fp32=6.5T,bandwidth=336GB/s,link=12GB/s"));
  EXPECT_EQ(p.name, "custom");
  EXPECT_EQ(p.memoryBytes, 8ull << 30);
  EXPECT_DOUBLE_EQ(p.fp32Flops, 6.5e12);
  EXPECT_DOUBLE_EQ(p.linkBandwidth, 12e9);
  EXPECT_DOUBLE_EQ(p.launchSeconds, 0);
  EXPECT_NE(errorOf(parseDeviceProfile("custom,memory=8GiB,fp32=1T"))
                .find("device 'custom' needs memory, fp32 and bandwidth"),
            std::string::npos);
}

TEST(DeviceProfile, Errors) {
  EXPECT_EQ(errorOf(parseDeviceProfile("tpu")).rfind(
                "unknown device 'tpu'; expected NAME[,KEY=VALUE]... with "
                "NAME cpu, rtx2060, a100-40g, h100, custom or a FILE.json "
                "user profile",
                0),
            0u);
  EXPECT_EQ(errorOf(parseDeviceProfile("h100,colour=red")).rfind(
                "unknown device key 'colour' in 'h100,colour=red'", 0),
            0u);
  EXPECT_EQ(errorOf(parseDeviceProfile("h100,memory=-1GB")),
            "bad value '-1GB' for device key 'memory': expected a size such "
            "as 8GiB, 750MB, 1.5GB or 1073741824 (units B, KB, MB, GB, TB, "
            "KiB, MiB, GiB, TiB)");
  EXPECT_EQ(errorOf(parseDeviceProfile("h100,bandwidth=fast")),
            "bad value 'fast' for device key 'bandwidth': expected bytes/s "
            "such as 336GB/s, 1.5TB/s or 12GiB/s");
  EXPECT_EQ(errorOf(parseDeviceProfile("h100,fp32=3GB/s")),
            "bad value '3GB/s' for device key 'fp32': expected FLOP/s such "
            "as 19.5T, 800G or 6.5e12");
  EXPECT_EQ(errorOf(parseDeviceProfile("h100,launch=5 parsecs")),
            "bad value '5 parsecs' for device key 'launch': expected seconds "
            "such as 5us, 0.1ms or 0");
  EXPECT_NE(errorOf(parseDeviceProfile("h100,fp32=0")), "");
  // A lean workspace is never faster than the full one.
  for (const char *spec : {"h100,lean=0.5", "h100,lean=fast", "h100,lean=2x"})
    EXPECT_EQ(errorOf(parseDeviceProfile(spec)),
              "bad value '" + llvm::StringRef(spec).split('=').second.str() +
                  "' for device key 'lean': expected a factor of at least 1 "
                  "such as 2 or 1.5");
}

/// Writes `text` to a temporary .json file and returns its path.
std::string jsonFile(llvm::StringRef text) {
  llvm::SmallString<128> path;
  int fd;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("device", "json", fd, path));
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << text;
  return path.str().str();
}

TEST(DeviceProfile, UserFile) {
  std::string path = jsonFile(
      R"({"name": "mygpu", "memory": "8GiB", "fp32": 6.5e12, )"
      R"("bandwidth": "336GB/s", "link": 12000000000, "launch": "5us"})");
  DeviceProfile p = cantFail(parseDeviceProfile(path));
  EXPECT_EQ(p.name, "mygpu");
  EXPECT_EQ(p.memoryBytes, 8ull << 30);
  EXPECT_DOUBLE_EQ(p.fp32Flops, 6.5e12);
  EXPECT_DOUBLE_EQ(p.memoryBandwidth, 336e9);
  EXPECT_DOUBLE_EQ(p.linkBandwidth, 12e9);
  EXPECT_DOUBLE_EQ(p.launchSeconds, 5e-6);
  EXPECT_DOUBLE_EQ(p.leanSlowdown, 2);
  // Overridden like a built-in profile.
  EXPECT_EQ(cantFail(parseDeviceProfile(path + ",memory=4GiB")).memoryBytes,
            4ull << 30);
  llvm::sys::fs::remove(path);
}

TEST(DeviceProfile, UserFileErrors) {
  auto errorFor = [](llvm::StringRef text) {
    std::string path = jsonFile(text);
    std::string message = errorOf(parseDeviceProfile(path));
    llvm::sys::fs::remove(path);
    // The file's name, then the cause.
    size_t cause = message.find("': ");
    return cause == std::string::npos ? message : message.substr(cause + 3);
  };
  const char *base = R"("memory": "8GiB", "fp32": "1T", "bandwidth": "1GB/s")";
  EXPECT_EQ(errorFor(std::string("{") + base + R"(, "colour": "red"})"),
            "unknown key 'colour'; expected name, memory, fp32, tf32, bf16, "
            "fp16, bandwidth, link, launch or lean");
  EXPECT_EQ(errorFor(R"({"memory": "lots", "fp32": "1T", "bandwidth": 1})"),
            "bad value 'lots' for device key 'memory': expected a size such "
            "as 8GiB, 750MB, 1.5GB or 1073741824 (units B, KB, MB, GB, TB, "
            "KiB, MiB, GiB, TiB)");
  EXPECT_EQ(errorFor(std::string("{") + base + R"(, "link": [1]})"),
            "bad value for device key 'link': expected a JSON number or a "
            "string such as \"8GiB\", \"19.5T\" or \"336GB/s\"");
  EXPECT_EQ(errorFor(std::string("{") + base + R"(, "lean": 0.5})")
                .rfind("bad value '", 0),
            0u);
  EXPECT_EQ(errorFor(R"({"memory": "8GiB"})").rfind(
                "a user profile needs memory, fp32 and bandwidth", 0),
            0u);
  EXPECT_EQ(errorFor("[1]").rfind("expected an object", 0), 0u);
  EXPECT_EQ(errorFor("{").rfind("not JSON: ", 0), 0u);
  EXPECT_EQ(errorOf(parseDeviceProfile("/nonexistent/p.json"))
                .rfind("device file '/nonexistent/p.json': cannot read it", 0),
            0u);
}

TEST(DeviceProfile, Budget) {
  DeviceProfile rtx = cantFail(parseDeviceProfile("rtx2060"));
  EXPECT_FALSE(llvm::errorToBool(verifyBudget(0, rtx)));
  EXPECT_FALSE(llvm::errorToBool(verifyBudget(8ull << 30, rtx)));
  EXPECT_EQ(llvm::toString(verifyBudget((8ull << 30) + 1, rtx)),
            "the budget of 8589934593 bytes (8.00 GiB) exceeds the memory of "
            "device 'rtx2060', 8589934592 bytes (8.00 GiB): give a budget of "
            "at most 8589934592 bytes or a device with more memory");
}

TEST(DeviceProfile, PeakByElementType) {
  mlir::MLIRContext context;
  mlir::Builder b(&context);
  DeviceProfile a100 = cantFail(parseDeviceProfile("a100-40g"));
  EXPECT_DOUBLE_EQ(a100.peakFlops(b.getF32Type()), 19.5e12);
  EXPECT_DOUBLE_EQ(a100.peakFlops(b.getBF16Type()), 312e12);
  EXPECT_DOUBLE_EQ(a100.peakFlops(b.getF16Type()), 312e12);
  // No bf16 tensor cores on Turing: bf16 runs at the fp32 rate.
  DeviceProfile rtx = cantFail(parseDeviceProfile("rtx2060"));
  EXPECT_DOUBLE_EQ(rtx.peakFlops(b.getBF16Type()), 6.45e12);
}

TEST(FormatBytes, BinaryUnits) {
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1536), "1.50 KiB");
  EXPECT_EQ(formatBytes(8ull << 30), "8.00 GiB");
}

} // namespace
