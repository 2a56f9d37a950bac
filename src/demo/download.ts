// Save a Blob as a file through a temporary object URL and an <a download>.

export function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // revoke later: the download may still be reading the URL
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
