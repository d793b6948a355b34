// SPDX-License-Identifier: MIT
// The Kineto classification rules as tables: every branch of classify(), isCommunicationName() and memcpyKind().
// A changed rule changes a row here.
#include "parsers/chromejson/kinetoclassify.h"

#include <QTest>

#include <string>

using namespace timesink;
using namespace timesink::parsers::chromejson;

class TestKinetoClassify : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void classifies_data();
    void classifies();
    void communicationNames_data();
    void communicationNames();
    void memcpyKinds_data();
    void memcpyKinds();
};

namespace {

QString placementKey(Placement p)
{
    switch (p) {
    case Placement::Host:
        return QStringLiteral("host");
    case Placement::DeviceStream:
        return QStringLiteral("stream");
    case Placement::DeviceAnnotation:
        return QStringLiteral("annotation");
    case Placement::DeviceSync:
        return QStringLiteral("sync");
    }
    return QStringLiteral("?");
}

QString str(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString memoryKey(model::HostMemoryKind m)
{
    switch (m) {
    case model::HostMemoryKind::Unknown:
        return QStringLiteral("unknown");
    case model::HostMemoryKind::Pageable:
        return QStringLiteral("pageable");
    case model::HostMemoryKind::Pinned:
        return QStringLiteral("pinned");
    }
    return QStringLiteral("?");
}

} // namespace

void TestKinetoClassify::classifies_data()
{
    QTest::addColumn<QString>("cat");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("category"); // model::categoryKey
    QTest::addColumn<QString>("placement");

    const auto row
        = [](const char* tag, const char* cat, const char* name, const char* category, const char* placement) {
              QTest::newRow(tag) << QString::fromUtf8(cat) << QString::fromUtf8(name) << QString::fromUtf8(category)
                                 << QString::fromUtf8(placement);
          };
    // Device categories: decided by the category alone, before any name rule.
    row("kernel", "kernel", "ampere_sgemm_128x64_tn", "kernel", "stream");
    row("Kernel (legacy)", "Kernel", "ampere_sgemm_128x64_tn", "kernel", "stream");
    row("kernel nccl prefix", "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", "communication",
        "stream");
    row("kernel ncclKernel inside", "kernel", "void ncclKernel_AllGather_RING_LL(ncclWorkElem)", "communication",
        "stream");
    row("kernel ncclDevKernel inside", "kernel", "void ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(x)",
        "communication", "stream");
    row("kernel rccl", "kernel", "rcclKernel_AllReduce", "communication", "stream");
    row("Kernel nccl (legacy)", "Kernel", "nccl_all_reduce", "communication", "stream");
    row("kernel nccl not a prefix", "kernel", "my_nccl_helper_kernel", "kernel", "stream");
    row("kernel record_param_comms", "kernel", "record_param_comms", "communication", "stream");
    row("kernel named like a step", "kernel", "ProfilerStep#3", "kernel", "stream");
    row("gpu_memcpy", "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", "memcpy", "stream");
    row("Memcpy (legacy)", "Memcpy", "Memcpy DtoH", "memcpy", "stream");
    row("gpu_memcpy named nccl", "gpu_memcpy", "ncclMemcpy", "memcpy", "stream");
    row("gpu_memset", "gpu_memset", "Memset (Device)", "memset", "stream");
    row("Memset (legacy)", "Memset", "Memset (Device)", "memset", "stream");
    row("cuda_sync", "cuda_sync", "Stream Sync", "sync", "sync");
    row("gpu_user_annotation", "gpu_user_annotation", "## forward ##", "annotation", "annotation");
    row("gpu_user_annotation step", "gpu_user_annotation", "ProfilerStep#1", "annotation", "annotation");
    row("mtia_ccp_events", "mtia_ccp_events", "mtia_kernel", "kernel", "stream");
    row("mtia_ccp_events nccl", "mtia_ccp_events", "nccl:all_reduce", "kernel", "stream");
    // Host: steps and dataloader by name, whatever the category.
    row("step cpu_op", "cpu_op", "ProfilerStep#12", "step", "host");
    row("step user_annotation", "user_annotation", "ProfilerStep#0", "step", "host");
    row("step no category", "", "ProfilerStep#1", "step", "host");
    row("step python_function", "python_function", "ProfilerStep#1", "step", "host");
    row("step unknown category", "Trace", "ProfilerStep#2", "step", "host");
    row("step without #", "cpu_op", "ProfilerStep", "host_op", "host");
    row("step not a prefix", "cpu_op", "my ProfilerStep#1", "host_op", "host");
    row("dataloader", "cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "dataloader", "host");
    row("dataloader user_annotation", "user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter",
        "dataloader", "host");
    row("dataloader python_function", "python_function", "enumerate(DataLoader)#x", "dataloader", "host");
    row("dataloader not a prefix", "cpu_op", "for enumerate(DataLoader)", "host_op", "host");
    // Host communication by name, except in Python frames.
    row("nccl: cpu_op", "cpu_op", "nccl:all_reduce", "communication", "host");
    row("record_param_comms", "cpu_op", "record_param_comms", "communication", "host");
    row("c10d::", "cpu_op", "c10d::allreduce_", "communication", "host");
    row("gloo:", "cpu_op", "gloo:all_reduce", "communication", "host");
    row("rccl host", "cpu_op", "rccl_all_reduce", "communication", "host");
    row("ncclKernel inside host", "cpu_op", "launch ncclKernel", "communication", "host");
    row("nccl runtime", "cuda_runtime", "ncclCommInitRank", "communication", "host");
    row("nccl user_annotation", "user_annotation", "nccl:broadcast", "communication", "host");
    row("nccl unknown category", "Trace", "nccl:all_gather", "communication", "host");
    row("nccl no category", "", "c10d::barrier", "communication", "host");
    row("nccl python_function", "python_function", "nccl_utils.py(10): ncclKernel", "python", "host");
    row("c10d python_function", "python_function", "c10d::allreduce_", "python", "host");
    row("gloo not a prefix", "cpu_op", "use gloo:all_reduce", "host_op", "host");
    // Host categories.
    row("cuda_runtime", "cuda_runtime", "cudaLaunchKernel", "runtime", "host");
    row("cuda_driver", "cuda_driver", "cuLaunchKernel", "runtime", "host");
    row("Runtime (legacy)", "Runtime", "cudaMemcpyAsync", "runtime", "host");
    row("mtia_runtime", "mtia_runtime", "mtiaLaunch", "runtime", "host");
    row("python_function", "python_function", "torch/nn/modules/module.py(1501): _call_impl", "python", "host");
    row("cpu_op", "cpu_op", "aten::mm", "host_op", "host");
    row("no category", "", "aten::mm", "host_op", "host");
    row("Operator (legacy)", "Operator", "aten::addmm", "host_op", "host");
    row("user_annotation", "user_annotation", "## forward ##", "annotation", "host");
    // Anything else is Other on the host, including categories that differ only in case.
    row("ac2g", "ac2g", "ac2g", "other", "host");
    row("fwdbwd", "fwdbwd", "fwdbwd", "other", "host");
    row("Trace", "Trace", "PyTorch Profiler (0)", "other", "host");
    row("cuda_profiler_range", "cuda_profiler_range", "range", "other", "host");
    row("KERNEL", "KERNEL", "ampere_sgemm_128x64_tn", "other", "host");
    row("CPU_OP", "CPU_OP", "aten::mm", "other", "host");
    row("gpu_user_annotation is not user_annotation", "User_annotation", "x", "other", "host");
}

void TestKinetoClassify::classifies()
{
    QFETCH(QString, cat);
    QFETCH(QString, name);
    QFETCH(QString, category);
    QFETCH(QString, placement);
    const std::string c = cat.toStdString();
    const std::string n = name.toStdString();
    const Classified got = classify(c, n);
    QCOMPARE(str(model::categoryKey(got.category)), category);
    QCOMPARE(placementKey(got.placement), placement);
}

void TestKinetoClassify::communicationNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("communication");
    const auto row
        = [](const char* name, bool communication) { QTest::newRow(name) << QString::fromUtf8(name) << communication; };
    row("nccl:all_reduce", true);
    row("ncclAllReduce", true);
    row("rccl:all_reduce", true);
    row("rcclKernel", true);
    row("void ncclKernel_AllReduce", true);
    row("void ncclDevKernel_AllGather", true);
    row("record_param_comms", true);
    row("record_param_comms_extra", true);
    row("c10d::allreduce_", true);
    row("gloo:all_reduce", true);
    row("", false);
    row("nccl", true);
    row("nccl_", true);
    row("Nccl:all_reduce", false);
    row("ncc", false);
    row("my_nccl_kernel", false);
    row("x rccl", false);
    row("x record_param_comms", false);
    row("c10d:allreduce", false);
    row("x c10d::allreduce_", false);
    row("gloo_all_reduce", false);
    row("x gloo:all_reduce", false);
    row("aten::mm", false);
    row("x ncclkernel", false);
}

void TestKinetoClassify::communicationNames()
{
    QFETCH(QString, name);
    QFETCH(bool, communication);
    QCOMPARE(isCommunicationName(name.toStdString()), communication);
}

void TestKinetoClassify::memcpyKinds_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("kindArg");
    QTest::addColumn<QString>("direction"); // model::directionKey
    QTest::addColumn<QString>("memory");
    const auto row
        = [](const char* tag, const char* name, const char* kindArg, const char* direction, const char* memory) {
              QTest::newRow(tag) << QString::fromUtf8(name) << QString::fromUtf8(kindArg)
                                 << QString::fromUtf8(direction) << QString::fromUtf8(memory);
          };
    row("HtoD pageable", "Memcpy HtoD (Pageable -> Device)", "", "htod", "pageable");
    row("HtoD pinned", "Memcpy HtoD (Pinned -> Device)", "", "htod", "pinned");
    row("DtoH pageable", "Memcpy DtoH (Device -> Pageable)", "", "dtoh", "pageable");
    row("DtoH pinned", "Memcpy DtoH (Device -> Pinned)", "", "dtoh", "pinned");
    row("DtoD", "Memcpy DtoD (Device -> Device)", "", "dtod", "unknown");
    row("PtoP", "Memcpy PtoP (Device -> Device)", "", "p2p", "unknown");
    row("Peer", "Memcpy Peer (Device -> Device)", "", "p2p", "unknown");
    row("no direction", "Memcpy", "", "", "unknown");
    row("empty", "", "", "", "unknown");
    // ROCm writes the direction in the kind arg.
    row("ROCm HtoD", "CopyHostToDevice", "HtoD", "htod", "unknown");
    row("ROCm DtoH", "CopyDeviceToHost", "DtoH", "dtoh", "unknown");
    row("ROCm DtoD", "CopyDeviceToDevice", "DtoD", "dtod", "unknown");
    row("ROCm PtoP", "CopyDeviceToDevice", "PtoP", "p2p", "unknown");
    row("ROCm Peer", "Copy", "Peer", "p2p", "unknown");
    row("kind arg unknown", "Copy", "Other", "", "unknown");
    // The name wins over the arg; the arg never says the memory.
    row("name over arg", "Memcpy HtoD (Pageable -> Device)", "DtoH", "htod", "pageable");
    row("arg says no memory", "Memcpy", "HtoD Pinned", "htod", "unknown");
    // The first match in the order HtoD, DtoH, DtoD, PtoP/Peer; Pageable before Pinned.
    row("HtoD before DtoH", "DtoH HtoD", "", "htod", "unknown");
    row("DtoH before DtoD", "DtoD DtoH", "", "dtoh", "unknown");
    row("DtoD before PtoP", "PtoP DtoD", "", "dtod", "unknown");
    row("DtoD before Peer", "Peer DtoD", "", "dtod", "unknown");
    row("Pageable before Pinned", "Memcpy HtoD (Pinned -> Pageable)", "", "htod", "pageable");
    row("case sensitive", "memcpy htod (pinned -> device)", "htod", "", "unknown");
}

void TestKinetoClassify::memcpyKinds()
{
    QFETCH(QString, name);
    QFETCH(QString, kindArg);
    QFETCH(QString, direction);
    QFETCH(QString, memory);
    const std::string n = name.toStdString();
    const std::string k = kindArg.toStdString();
    const MemcpyKind got = memcpyKind(n, k);
    QCOMPARE(str(model::directionKey(got.direction)), direction);
    QCOMPARE(memoryKey(got.memory), memory);
}

QTEST_GUILESS_MAIN(TestKinetoClassify)
#include "tst_kinetoclassify.moc"
