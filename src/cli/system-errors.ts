/**
 * Operating-system errors (EACCES, EISDIR, ...) in words, one line each. Apart from
 * messages.ts (oclif's errors) so that what needs no oclif loads none.
 */
import { isSystemError } from '../errors.js'

/** errno codes a user meets reading files, in words. */
const SYSTEM_ERROR_WORDS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EIO: 'input/output error',
  ENXIO: 'no such device or address',
  ENODEV: 'no such device',
  EBUSY: 'the device or resource is busy',
  ETXTBSY: 'the file is busy',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
}

/** A system error of `file` as "cannot read FILE: permission denied"; null for any other error. */
export function systemErrorLine(file: string, e: unknown): string | null {
  if (!isSystemError(e)) return null
  const words = SYSTEM_ERROR_WORDS[e.code ?? ''] ?? `${e.code}`.toLowerCase()
  const verb = e.syscall === 'write' || e.syscall === 'rename' || e.syscall === 'mkdir' ? 'write' : 'read'
  return `cannot ${verb} ${file}: ${words}`
}
