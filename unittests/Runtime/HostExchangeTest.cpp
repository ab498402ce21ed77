//===- HostExchangeTest.cpp - The choice of a run's exchange --------------===//
//
// What Exchange.h decides without MPI or a GPU: nccl by default on CUDA,
// mpi when NCCL is missing or ranks share a GPU (with the reason), errors
// naming the fix for a request that cannot be served, mpi only on the CPU;
// the staging buffer is the plan's largest exchanged tensor for CUDA over
// mpi and nothing otherwise; the run report's exchange fields.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Exchange.h"
#include "memopt/Runtime/Program.h"
#include "memopt/Runtime/RunReport.h"

#include "gtest/gtest.h"

using namespace memopt::rt;

namespace {

ExchangeFacts cudaFacts(bool ncclBuilt, bool ranksShareGpu) {
  ExchangeFacts facts;
  facts.cuda = true;
  facts.ncclBuilt = ncclBuilt;
  facts.ranksShareGpu = ranksShareGpu;
  return facts;
}

TEST(RuntimeHostExchange, Names) {
  EXPECT_EQ(parseExchangeKind("nccl"), ExchangeKind::Nccl);
  EXPECT_EQ(parseExchangeKind("mpi"), ExchangeKind::Mpi);
  EXPECT_EQ(parseExchangeKind("NCCL"), std::nullopt);
  EXPECT_EQ(parseExchangeKind(""), std::nullopt);
  EXPECT_STREQ(exchangeName(ExchangeKind::Nccl), "nccl");
  EXPECT_STREQ(exchangeName(ExchangeKind::Mpi), "mpi");
}

TEST(RuntimeHostExchange, CudaDefaultsToNccl) {
  ExchangeChoice choice;
  ASSERT_TRUE(chooseExchange(std::nullopt, cudaFacts(true, false), choice).ok());
  EXPECT_EQ(choice.kind, ExchangeKind::Nccl);
  EXPECT_EQ(choice.note, "");
  ASSERT_TRUE(
      chooseExchange(ExchangeKind::Mpi, cudaFacts(true, false), choice).ok());
  EXPECT_EQ(choice.kind, ExchangeKind::Mpi);
  EXPECT_EQ(choice.note, "");
}

TEST(RuntimeHostExchange, CudaFallsBackToMpiSayingWhy) {
  ExchangeChoice choice;
  ASSERT_TRUE(chooseExchange(std::nullopt, cudaFacts(true, true), choice).ok());
  EXPECT_EQ(choice.kind, ExchangeKind::Mpi);
  EXPECT_EQ(choice.note, "mpi instead of nccl: ranks share a GPU (more ranks "
                         "on a node than visible GPUs), which NCCL refuses");
  ASSERT_TRUE(
      chooseExchange(std::nullopt, cudaFacts(false, false), choice).ok());
  EXPECT_EQ(choice.kind, ExchangeKind::Mpi);
  EXPECT_EQ(choice.note, "mpi instead of nccl: the runtime was built without "
                         "NCCL (CMake found no libnccl)");
}

TEST(RuntimeHostExchange, ExplicitNcclThatCannotRunIsAnError) {
  ExchangeChoice choice;
  Status shared = chooseExchange(ExchangeKind::Nccl, cudaFacts(true, true),
                                 choice);
  ASSERT_FALSE(shared.ok());
  EXPECT_EQ(shared.message(),
            "--exchange=nccl: ranks share a GPU (more ranks on a node than "
            "visible GPUs), which NCCL refuses: give --exchange=mpi "
            "(host-staged copies) or run one rank per GPU");
  Status missing = chooseExchange(ExchangeKind::Nccl, cudaFacts(false, false),
                                  choice);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(),
            "--exchange=nccl: the runtime was built without NCCL (CMake "
            "found no libnccl): give --exchange=mpi (host-staged copies) or "
            "rebuild memopt with NCCL");
}

TEST(RuntimeHostExchange, CpuExchangesOverMpiOnly) {
  ExchangeChoice choice;
  ASSERT_TRUE(chooseExchange(std::nullopt, ExchangeFacts{}, choice).ok());
  EXPECT_EQ(choice.kind, ExchangeKind::Mpi);
  ASSERT_TRUE(chooseExchange(ExchangeKind::Mpi, ExchangeFacts{}, choice).ok());
  Status nccl = chooseExchange(ExchangeKind::Nccl, ExchangeFacts{}, choice);
  ASSERT_FALSE(nccl.ok());
  EXPECT_EQ(nccl.message(),
            "--exchange=nccl: this binary was compiled for the CPU backend, "
            "whose tensors travel over MPI: give --exchange=mpi or drop "
            "--exchange");
}

TEST(RuntimeHostExchange, StagingIsThePlansLargestTensorForCudaOverMpi) {
  Program program{};
  program.exchangeBytes = 32768;
  EXPECT_EQ(stagingHostBytes(program, ExchangeKind::Mpi, /*cuda=*/true),
            32768u);
  EXPECT_EQ(stagingHostBytes(program, ExchangeKind::Nccl, /*cuda=*/true), 0u);
  EXPECT_EQ(stagingHostBytes(program, ExchangeKind::Mpi, /*cuda=*/false), 0u);
}

TEST(RuntimeHostExchange, RunReportKeepsExchangeBytesApartFromThePeak) {
  RunRecord record;
  record.model = "m";
  record.measuredPeakBytes = 1000;
  record.stages = 2;
  record.rankPeakBytes = {1000, 900};
  record.exchange.kind = "mpi";
  record.exchange.note = "mpi instead of nccl: why";
  record.rankCommDeviceBytes = {0, 0};
  record.rankStagingHostBytes = {4096, 2048};
  std::string json = runReportJson(record);
  EXPECT_NE(json.find("\"measured_peak_bytes\": 1000,"), std::string::npos);
  EXPECT_NE(json.find("\"exchange\": \"mpi\",\n  \"exchange_note\": \"mpi "
                      "instead of nccl: why\",\n  \"comm_device_bytes\": 0,\n"
                      "  \"staging_host_bytes\": 4096,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"rank\": 1, \"stage\": 1, \"replica\": 0, "
                      "\"measured_peak_bytes\": 900, \"comm_device_bytes\": 0, "
                      "\"staging_host_bytes\": 2048}"),
            std::string::npos)
      << json;
  // One process: no exchange.
  RunRecord one;
  EXPECT_EQ(runReportJson(one).find("exchange"), std::string::npos);
}

} // namespace
