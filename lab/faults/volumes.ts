import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { firstReason, FaultUnavailable, needsCommand, needsFileSystem, needsLoopDevices, needsRoot, runOrThrow } from './requirements.js'

/** A file system mounted over a broker's data directory by the lab; unmount() undoes everything. */
export type LabVolume = {
  mountPoint: string
  /** Unmounts (lazily if a process still holds it), detaches the loop device and deletes the image; idempotent. */
  unmount(): void
}

/** Why a small tmpfs cannot be mounted here, or undefined. */
export function tmpfsUnavailable(): string | undefined {
  return firstReason(needsRoot('a tmpfs log dir'), needsFileSystem('tmpfs'))
}

/** Why a loop-mounted ext4 that can be switched to I/O errors cannot be set up here, or undefined. */
export function ioErrorVolumeUnavailable(): string | undefined {
  return firstReason(
    loopVolumeUnavailable(),
    // The shutdown ioctl (EXT4_IOC_SHUTDOWN, the same number as XFS_IOC_GOINGDOWN) through xfs_io.
    needsCommand('xfs_io', 'xfsprogs'),
  )
}

/** Why a loop-mounted ext4 cannot be set up here (without switching it to EIO), or undefined. */
export function loopVolumeUnavailable(): string | undefined {
  return firstReason(
    needsRoot('a loop-mounted log dir'),
    needsLoopDevices(),
    needsFileSystem('ext4'),
    needsCommand('losetup', 'mount'),
    needsCommand('mkfs.ext4', 'e2fsprogs'),
  )
}

function umount(mountPoint: string): void {
  if (spawnSync('mountpoint', ['-q', mountPoint]).status !== 0) return
  // A broker that has not quite gone still holds files: detach now, the kernel finishes later.
  if (spawnSync('umount', [mountPoint]).status !== 0) spawnSync('umount', ['-l', mountPoint])
}

/**
 * Mounts a tmpfs of `sizeMb` MiB over `dir` (created if missing) so a broker's log dir fills to
 * ENOSPC ("No space left on device") within seconds of load. Mode 0755 so an unprivileged broker
 * can be given it.
 */
export function mountTmpfs(dir: string, sizeMb: number): LabVolume {
  const reason = tmpfsUnavailable()
  if (reason) throw new FaultUnavailable(reason)
  mkdirSync(dir, { recursive: true })
  runOrThrow('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir], `tmpfs of ${sizeMb} MiB on ${dir}`)
  let mounted = true
  return {
    mountPoint: dir,
    unmount() {
      if (!mounted) return
      mounted = false
      umount(dir)
    },
  }
}

/** A loop-mounted ext4 whose every later operation can be made to fail with EIO. */
export type IoErrorVolume = LabVolume & {
  /**
   * Shuts the file system down (EXT4_IOC_SHUTDOWN with "flush log", what the kernel does itself on a
   * fatal journal I/O error): every read, write, fsync and open under it now fails with EIO
   * ("Input/output error"), exactly as a dying disk under ext4 looks to the process.
   */
  failWithIoErrors(): void
  /** The loop device, for the README. */
  device: string
}

/**
 * Creates a `sizeMb` MiB image file, attaches it to a loop device, makes an ext4 on it and mounts it
 * over `dir`. unmount() unmounts, detaches and deletes the image.
 */
export function mountIoErrorVolume(dir: string, imageFile: string, sizeMb: number, options: { shutdown?: boolean } = {}): IoErrorVolume {
  // Without the shutdown (a slow disk only needs the loop device), xfs_io is not needed.
  const reason = options.shutdown === false ? loopVolumeUnavailable() : ioErrorVolumeUnavailable()
  if (reason) throw new FaultUnavailable(reason)
  mkdirSync(dir, { recursive: true })
  runOrThrow('truncate', ['-s', `${sizeMb}M`, imageFile], 'image file')
  let device = ''
  let mounted = false
  const undo = () => {
    if (mounted) umount(dir)
    mounted = false
    if (device) spawnSync('losetup', ['-d', device])
    device = ''
    rmSync(imageFile, { force: true })
  }
  try {
    device = runOrThrow('losetup', ['-f', '--show', imageFile], 'loop device').trim()
    runOrThrow('mkfs.ext4', ['-q', '-F', '-E', 'lazy_itable_init=0,lazy_journal_init=0', device], 'mkfs.ext4')
    runOrThrow('mount', ['-t', 'ext4', device, dir], `ext4 on ${dir}`)
    mounted = true
    // mkfs leaves lost+found, which Kafka would take for a partition directory and refuse.
    rmSync(`${dir}/lost+found`, { recursive: true, force: true })
    chmodSync(dir, statSync(dir).mode | 0o755)
  } catch (err) {
    undo()
    throw err
  }
  const loop = device
  return {
    mountPoint: dir,
    device: loop,
    failWithIoErrors() {
      runOrThrow('xfs_io', ['-x', '-c', 'shutdown -f', dir], `shutdown of the file system on ${dir}`)
    },
    unmount: undo,
  }
}

/**
 * Takes every permission off a directory (chmod 000) so a broker running as another user can no
 * longer list it nor create files in it; returns the undo, which restores the mode it had.
 */
export function makeUnreadable(dir: string): () => void {
  const before = statSync(dir).mode & 0o7777
  chmodSync(dir, 0o000)
  let undone = false
  return () => {
    if (undone) return
    undone = true
    chmodSync(dir, before)
  }
}
