/**
 * A file chosen in the preview form as the execute API takes a `type: file` (or `image`) value: a
 * data URI with the file's media type and name (`data:text/plain;name=note.txt;base64,...`), the
 * same form `restfn run --server` sends. A file the browser knows no type for goes as
 * application/octet-stream, and the platform reads the bytes' signature.
 */
export function fileDataUri(type: string, name: string, base64: string): string {
  return `data:${type || 'application/octet-stream'};name=${encodeURIComponent(name)};base64,${base64}`;
}

/** Reads a chosen file into that data URI. */
export function readFileValue(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(fileDataUri(file.type, file.name, url.slice(url.indexOf(',') + 1)));
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** The parameter types that hold a file's bytes. */
export const isFileType = (type: string | undefined) => type === 'file' || type === 'image';
