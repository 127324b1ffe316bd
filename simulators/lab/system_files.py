"""The admin host's own files: what an Ubuntu 22.04.5 server holds where a learner looks (the
release, host and account files in /etc, /proc's version, cpuinfo and meminfo, the programs on
PATH in /usr/bin and /usr/local/bin, the usr-merge links `/bin -> usr/bin` and the rest at the
top), as fixed data every lab shares and none saves: simulators.lab.fs reads them beside a lab's
own files (`HostState.files`), so every tool sees one tree.

All are root's: admin reads them and can change none but /dev/null, the null device (1, 3)
every user reads as empty and writes to, whose writes simulators.lab.fs.store discards. A file
is its text, its permission bits and, where stat's size is not the text's length, that size:
/proc's files are 0 bytes to `ls` and their text to `cat`, as the kernel's are; a program's
text is its ELF header and its size a real build's. The programs are the lab's registered tools
(simulators.lab.commands.PATHS, read when first asked for: `which` and `ls /usr/bin` agree).

/etc/hosts names the cluster's control plane at the kubeconfig's server address and the three
DGX nodes every ticket has, at the InternalIP addresses the world gives them
(simulators.lab.world_cluster); the L40S servers two tickets add are not in it, as nodes that
joined after the file was written are not on a real admin host either.
"""

from __future__ import annotations

from dataclasses import dataclass

# Folders below the top level's (fs.SYSTEM), with their modes.
FOLDERS = {
    "/lost+found": 0o700, "/run/systemd": 0o755, "/run/systemd/resolve": 0o755,
    **dict.fromkeys(
        [f"/usr/{name}" for name in ("bin", "games", "include", "lib", "lib32", "lib64",
                                     "libexec", "libx32", "local", "sbin", "share", "src")]
        + [f"/usr/local/{name}" for name in ("bin", "etc", "games", "include", "lib", "sbin",
                                             "share", "src")],
        0o755,
    ),
}  # fmt: skip

# Symbolic links: path -> the target as stored (`ls -l` prints it; relative to the link's folder).
LINKS = {
    "/bin": "usr/bin",
    "/lib": "usr/lib",
    "/lib32": "usr/lib32",
    "/lib64": "usr/lib64",
    "/libx32": "usr/libx32",
    "/sbin": "usr/sbin",
    "/etc/os-release": "../usr/lib/os-release",
    "/etc/resolv.conf": "../run/systemd/resolve/stub-resolv.conf",
}


@dataclass(frozen=True)
class SystemFile:
    text: str
    mode: int = 0o644
    size: int | None = None  # stat's size, where it is not the text's length
    device: tuple[int, int] | None = None  # a character device's major and minor numbers


CONTROL_PLANE = ("10.0.0.10", "dgx-cluster-api")  # the kubeconfig's server (kubeconfig.SERVER)
NODES = tuple((f"10.10.0.{10 + i}", f"gpu-node{i}") for i in (1, 2, 3))  # world_cluster's

HOSTS = (
    "127.0.0.1 localhost\n"
    "127.0.1.1 kadmin\n"
    "\n"
    "# The following lines are desirable for IPv6 capable hosts\n"
    "::1     ip6-localhost ip6-loopback\n"
    "fe00::0 ip6-localnet\n"
    "ff00::0 ip6-mcastprefix\n"
    "ff02::1 ip6-allnodes\n"
    "ff02::2 ip6-allrouters\n"
    "\n"
    "# dgx-cluster\n" + "".join(f"{ip:<11} {name}\n" for ip, name in (CONTROL_PLANE, *NODES))
)

OS_RELEASE = """\
PRETTY_NAME="Ubuntu 22.04.5 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.5 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=jammy
"""

LSB_RELEASE = """\
DISTRIB_ID=Ubuntu
DISTRIB_RELEASE=22.04
DISTRIB_CODENAME=jammy
DISTRIB_DESCRIPTION="Ubuntu 22.04.5 LTS"
"""

_NOLOGIN = "/usr/sbin/nologin"
PASSWD = "".join(
    f"{line}\n"
    for line in (
        "root:x:0:0:root:/root:/bin/bash",
        f"daemon:x:1:1:daemon:/usr/sbin:{_NOLOGIN}",
        f"bin:x:2:2:bin:/bin:{_NOLOGIN}",
        f"sys:x:3:3:sys:/dev:{_NOLOGIN}",
        "sync:x:4:65534:sync:/bin:/bin/sync",
        f"games:x:5:60:games:/usr/games:{_NOLOGIN}",
        f"man:x:6:12:man:/var/cache/man:{_NOLOGIN}",
        f"lp:x:7:7:lp:/var/spool/lpd:{_NOLOGIN}",
        f"mail:x:8:8:mail:/var/mail:{_NOLOGIN}",
        f"news:x:9:9:news:/var/spool/news:{_NOLOGIN}",
        f"uucp:x:10:10:uucp:/var/spool/uucp:{_NOLOGIN}",
        f"proxy:x:13:13:proxy:/bin:{_NOLOGIN}",
        f"www-data:x:33:33:www-data:/var/www:{_NOLOGIN}",
        f"backup:x:34:34:backup:/var/backups:{_NOLOGIN}",
        f"list:x:38:38:Mailing List Manager:/var/list:{_NOLOGIN}",
        f"irc:x:39:39:ircd:/run/ircd:{_NOLOGIN}",
        f"gnats:x:41:41:Gnats Bug-Reporting System (admin):/var/lib/gnats:{_NOLOGIN}",
        f"nobody:x:65534:65534:nobody:/nonexistent:{_NOLOGIN}",
        f"_apt:x:100:65534::/nonexistent:{_NOLOGIN}",
        f"systemd-network:x:101:102:systemd Network Management,,,:/run/systemd:{_NOLOGIN}",
        f"systemd-resolve:x:102:103:systemd Resolver,,,:/run/systemd:{_NOLOGIN}",
        f"messagebus:x:103:104::/nonexistent:{_NOLOGIN}",
        f"systemd-timesync:x:104:105:systemd Time Synchronization,,,:/run/systemd:{_NOLOGIN}",
        "pollinate:x:105:1::/var/cache/pollinate:/bin/false",
        f"sshd:x:106:65534::/run/sshd:{_NOLOGIN}",
        f"syslog:x:107:113::/home/syslog:{_NOLOGIN}",
        f"uuidd:x:108:114::/run/uuidd:{_NOLOGIN}",
        f"tcpdump:x:109:115::/nonexistent:{_NOLOGIN}",
        "tss:x:110:116:TPM software stack,,,:/var/lib/tpm:/bin/false",
        f"landscape:x:111:117::/var/lib/landscape:{_NOLOGIN}",
        f"fwupd-refresh:x:112:118:fwupd-refresh user,,,:/run/systemd:{_NOLOGIN}",
        f"usbmux:x:113:46:usbmux daemon,,,:/var/lib/usbmux:{_NOLOGIN}",
        "admin:x:1000:1000:admin,,,:/home/admin:/bin/bash",
    )
)

# Groups and their members; admin is in sudo, as `id` says (simulators.lab.hosttools.GROUPS).
GROUP = "".join(
    f"{name}:x:{gid}:{members}\n"
    for name, gid, members in (
        ("root", 0, ""), ("daemon", 1, ""), ("bin", 2, ""), ("sys", 3, ""), ("adm", 4, "syslog"),
        ("tty", 5, ""), ("disk", 6, ""), ("lp", 7, ""), ("mail", 8, ""), ("news", 9, ""),
        ("uucp", 10, ""), ("man", 12, ""), ("proxy", 13, ""), ("kmem", 15, ""),
        ("dialout", 20, ""), ("fax", 21, ""), ("voice", 22, ""), ("cdrom", 24, ""),
        ("floppy", 25, ""), ("tape", 26, ""), ("sudo", 27, "admin"), ("audio", 29, ""),
        ("dip", 30, ""), ("www-data", 33, ""), ("backup", 34, ""), ("operator", 37, ""),
        ("list", 38, ""), ("irc", 39, ""), ("src", 40, ""), ("gnats", 41, ""),
        ("shadow", 42, ""), ("utmp", 43, ""), ("video", 44, ""), ("sasl", 45, ""),
        ("plugdev", 46, ""), ("staff", 50, ""), ("games", 60, ""), ("users", 100, ""),
        ("nogroup", 65534, ""), ("systemd-journal", 101, ""), ("systemd-network", 102, ""),
        ("systemd-resolve", 103, ""), ("messagebus", 104, ""), ("systemd-timesync", 105, ""),
        ("input", 106, ""), ("sgx", 107, ""), ("kvm", 108, ""), ("render", 109, ""),
        ("lxd", 110, ""), ("_ssh", 111, ""), ("crontab", 112, ""), ("syslog", 113, ""),
        ("uuidd", 114, ""), ("tcpdump", 115, ""), ("tss", 116, ""), ("landscape", 117, ""),
        ("fwupd-refresh", 118, ""), ("admin", 1000, ""),
    )
)  # fmt: skip

SHELLS = """\
# /etc/shells: valid login shells
/bin/sh
/bin/bash
/usr/bin/bash
/bin/rbash
/usr/bin/rbash
/usr/bin/sh
/bin/dash
/usr/bin/dash
/usr/bin/tmux
/usr/bin/screen
"""

STUB_RESOLV = """\
# This is /run/systemd/resolve/stub-resolv.conf managed by man:systemd-resolved(8).
# Do not edit.
#
# This file might be symlinked as /etc/resolv.conf. If you're looking at
# /etc/resolv.conf and seeing this text, you have followed the symlink.
#
# This is a dynamic resolv.conf file for connecting local clients to the
# internal DNS stub resolver of systemd-resolved. This file lists all
# configured search domains.
#
# Run "resolvectl status" to see details about the uplink DNS servers
# currently in use.
#
# Third party programs should typically not access this file directly, but only
# through the symlink at /etc/resolv.conf. To manage man:resolv.conf(5) in a
# different way, replace this symlink by a static file or a different symlink.
#
# See man:systemd-resolved.service(8) for details about the supported modes of
# operation for /etc/resolv.conf.

nameserver 127.0.0.53
options edns0 trust-ad
search .
"""

PROC_VERSION = (
    "Linux version 5.15.0-126-generic (buildd@lcy02-amd64-032) (gcc (Ubuntu "
    "11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) "
    "#136-Ubuntu SMP Wed Nov 6 10:38:22 UTC 2024\n"
)

CPUS = 4
_FLAGS = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
    "sse sse2 ss syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon rep_good nopl xtopology "
    "nonstop_tsc cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic "
    "movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm abm "
    "3dnowprefetch cpuid_fault invpcid_single ssbd ibrs ibpb stibp ibrs_enhanced fsgsbase "
    "tsc_adjust bmi1 avx2 smep bmi2 erms invpcid avx512f avx512dq rdseed adx smap avx512ifma "
    "clflushopt clwb avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves wbnoinvd "
    "arat avx512vbmi umip pku ospke avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg "
    "avx512_vpopcntdq la57 rdpid fsrm md_clear arch_capabilities"
)
CPUINFO = "".join(
    f"processor\t: {n}\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 106\n"
    "model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n"
    "stepping\t: 6\n"
    "microcode\t: 0xd0003e7\n"
    "cpu MHz\t\t: 1999.999\n"
    "cache size\t: 49152 KB\n"
    "physical id\t: 0\n"
    f"siblings\t: {CPUS}\n"
    f"core id\t\t: {n}\n"
    f"cpu cores\t: {CPUS}\n"
    f"apicid\t\t: {n}\n"
    f"initial apicid\t: {n}\n"
    "fpu\t\t: yes\n"
    "fpu_exception\t: yes\n"
    "cpuid level\t: 27\n"
    "wp\t\t: yes\n"
    f"flags\t\t: {_FLAGS}\n"
    "bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs mmio_stale_data eibrs_pbrsb"
    " gds bhi\n"
    "bogomips\t: 3999.99\n"
    "clflush size\t: 64\n"
    "cache_alignment\t: 64\n"
    "address sizes\t: 46 bits physical, 57 bits virtual\n"
    "power management:\n"
    "\n"
    for n in range(CPUS)
)

# /proc/meminfo's lines: a 16-column name, an 8-column number (HardwareCorrupted's own format).
MEMINFO = "".join(
    (f"{name}: {value:>5} kB\n" if name == "HardwareCorrupted" else
     f"{name + ':':<16}{value:>8}{'' if name.startswith('HugePages_') else ' kB'}\n")
    for name, value in (
        ("MemTotal", 16367548), ("MemFree", 13218764), ("MemAvailable", 15420232),
        ("Buffers", 120412), ("Cached", 2190884), ("SwapCached", 0), ("Active", 1036064),
        ("Inactive", 1727512), ("Active(anon)", 2732), ("Inactive(anon)", 459948),
        ("Active(file)", 1033332), ("Inactive(file)", 1267564), ("Unevictable", 27468),
        ("Mlocked", 27468), ("SwapTotal", 4194300), ("SwapFree", 4194300), ("Dirty", 56),
        ("Writeback", 0), ("AnonPages", 479824), ("Mapped", 272744), ("Shmem", 2340),
        ("KReclaimable", 129084), ("Slab", 220540), ("SReclaimable", 129084),
        ("SUnreclaim", 91456), ("KernelStack", 4528), ("PageTables", 6216),
        ("NFS_Unstable", 0), ("Bounce", 0), ("WritebackTmp", 0), ("CommitLimit", 12378074),
        ("Committed_AS", 1684500), ("VmallocTotal", 34359738367), ("VmallocUsed", 29140),
        ("VmallocChunk", 0), ("Percpu", 3584), ("HardwareCorrupted", 0),
        ("AnonHugePages", 0), ("ShmemHugePages", 0), ("ShmemPmdMapped", 0),
        ("FileHugePages", 0), ("FilePmdMapped", 0), ("HugePages_Total", 0),
        ("HugePages_Free", 0), ("HugePages_Rsvd", 0), ("HugePages_Surp", 0),
        ("Hugepagesize", 2048), ("Hugetlb", 0), ("DirectMap4k", 171916),
        ("DirectMap2M", 5070848), ("DirectMap1G", 12582912),
    )
)  # fmt: skip

NULL_DEVICE = (1, 3)

_PROC = {"/proc/version": PROC_VERSION, "/proc/cpuinfo": CPUINFO, "/proc/meminfo": MEMINFO}

FILES: dict[str, SystemFile] = {
    "/etc/hostname": SystemFile("kadmin\n"),
    "/etc/hosts": SystemFile(HOSTS),
    "/etc/lsb-release": SystemFile(LSB_RELEASE),
    "/etc/passwd": SystemFile(PASSWD),
    "/etc/group": SystemFile(GROUP),
    "/etc/shells": SystemFile(SHELLS),
    "/etc/timezone": SystemFile("Etc/UTC\n"),
    "/etc/debian_version": SystemFile("bookworm/sid\n"),
    "/etc/issue": SystemFile("Ubuntu 22.04.5 LTS \\n \\l\n\n"),
    "/etc/issue.net": SystemFile("Ubuntu 22.04.5 LTS\n"),
    "/usr/lib/os-release": SystemFile(OS_RELEASE),
    "/run/systemd/resolve/stub-resolv.conf": SystemFile(STUB_RESOLV),
    # The null device (1, 3), read and written by all: read as empty (`cat /dev/null`,
    # `--kubeconfig=/dev/null`), and every tool's writes to it are discarded (fs.store).
    "/dev/null": SystemFile("", 0o666, device=NULL_DEVICE),
    **{path: SystemFile(text, 0o444, size=0) for path, text in _PROC.items()},
}

# A program's text: its 64-byte ELF header (x86-64, little-endian, a position-independent
# executable; no byte above 0x7f, so that its text is its bytes), all a tool reads of it: `ls`,
# `wc -c` and `find -size` see the build's size (SIZES), a bounded prefix is what is read.
ELF = (
    "\x7fELF\x02\x01\x01"
    + "\x00" * 9  # e_ident: 64-bit, little-endian, System V
    + "\x03\x00\x3e\x00\x01\x00\x00\x00"  # ET_DYN, x86-64, version 1
    + "\x00\x40\x00\x00\x00\x00\x00\x00"  # e_entry
    + "\x40"
    + "\x00" * 7  # e_phoff: the program headers follow
    + "\x00" * 8
    + "\x00" * 4  # e_shoff, e_flags
    + "\x40\x00\x38\x00\x0d\x00\x40\x00\x00\x00\x00\x00"  # sizes and counts
)
# Sizes of the programs' files (the builds an Ubuntu 22.04 host with the lab's tools has).
SIZES = {
    "[": 68496, "awk": 162752, "base64": 48016, "basename": 43856, "bash": 1396520,
    "cat": 44016, "chmod": 64496, "clear": 14584, "column": 55616, "cp": 151152, "cut": 48112,
    "date": 121904, "diff": 155216, "dirname": 39760, "env": 48536, "find": 224848,
    "grep": 203152, "head": 48080, "helm": 52146328, "hostname": 22680, "id": 48144,
    "jq": 30800, "kubectl": 56401920, "less": 198960, "ls": 151344, "mkdir": 97552,
    "more": 59712, "mv": 142968, "nano": 283144, "nl": 113776, "paste": 43920, "rev": 14648,
    "rm": 72752, "rmdir": 56240, "runai": 64724992, "sed": 126424, "seq": 60336, "sh": 125688,
    "sleep": 43888, "sort": 118456, "ssh": 1125408, "sudo": 232416, "tac": 113712,
    "tail": 76944, "tee": 43984, "test": 60304, "touch": 109616, "tr": 56208, "uname": 43888,
    "uniq": 48080, "vi": 3771464, "vim": 3771464, "watch": 27352, "wc": 52280, "which": 1073,
    "whoami": 39792, "xargs": 72136,
}  # fmt: skip
DEFAULT_SIZE = 65536
# Programs with special bits: sudo is set-user-ID root.
MODES = {"sudo": 0o4755}

_programs: tuple[int, dict[str, SystemFile]] = (-1, {})


def programs() -> dict[str, SystemFile]:
    """The lab's registered programs, by path (commands.PATHS, built again if it grew)."""
    global _programs
    from simulators.lab import commands  # every tool imports fs: commands comes last

    count, built = _programs
    if count != len(commands.PATHS):
        built = {
            path: SystemFile(ELF, MODES.get(name, 0o755), SIZES.get(name, DEFAULT_SIZE))
            for name, path in commands.PATHS.items()
        }
        _programs = (len(commands.PATHS), built)
    return built


def program_at(path: str) -> str | None:
    """The name of the lab's tool whose program is at `path` (`/usr/bin/ls`: `ls`), if any."""
    from simulators.lab import commands

    return next((name for name, where in commands.PATHS.items() if where == path), None)


def file_at(path: str) -> SystemFile | None:
    """The system's file at an absolute, normal path (no link followed), if there is one."""
    return FILES.get(path) or programs().get(path)


def holds(path: str) -> bool:
    """Whether the system has a file or a link at `path` (an absolute, normal path)."""
    return path in LINKS or file_at(path) is not None


def names_in(folder: str) -> list[str]:
    """The names of the system's files and links directly in `folder`."""
    prefix = folder.rstrip("/") + "/"
    paths = [*FILES, *programs(), *LINKS]
    return [p[len(prefix) :] for p in paths if p.startswith(prefix) and "/" not in p[len(prefix) :]]
