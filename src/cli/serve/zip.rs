//! A report folder as one ZIP archive for the page's "Download report": every file the
//! run wrote (report.md, its charts as SVG and PNG, the tables, the scenario), stored
//! uncompressed (the PNGs and Parquet files are compressed already, and a report is a few
//! megabytes at most), readable by every unzip tool.

/// The archive of `files` (name, bytes), in the order given, under the folder `folder`.
pub(super) fn stored(folder: &str, files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, bytes) in files {
        let path = format!("{folder}/{name}");
        let crc = crc32fast::hash(bytes);
        let size = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        let offset = u32::try_from(out.len()).unwrap_or(u32::MAX);
        // Local file header: version 2.0, UTF-8 names (bit 11), stored, no date.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        header_fields(&mut out, crc, size, &path);
        out.extend_from_slice(path.as_bytes());
        out.extend_from_slice(bytes);
        // Its central directory entry.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // made by: version 2.0
        header_fields(&mut central, crc, size, &path);
        central.extend_from_slice(&0u16.to_le_bytes()); // comment length
        central.extend_from_slice(&0u16.to_le_bytes()); // disk
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(path.as_bytes());
    }
    let at = u32::try_from(out.len()).unwrap_or(u32::MAX);
    let count = u16::try_from(files.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&central);
    // End of central directory.
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // this disk, the directory's disk
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&u32::try_from(central.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    out
}

/// The fields local and central headers share, from "version needed" to "extra length".
fn header_fields(out: &mut Vec<u8>, crc: u32, size: u32, path: &str) {
    out.extend_from_slice(&20u16.to_le_bytes()); // version needed: 2.0
    out.extend_from_slice(&(1u16 << 11).to_le_bytes()); // names in UTF-8
    out.extend_from_slice(&0u16.to_le_bytes()); // stored
    out.extend_from_slice(&0u16.to_le_bytes()); // time
    out.extend_from_slice(&0x0021u16.to_le_bytes()); // date: 1980-01-01
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes()); // compressed
    out.extend_from_slice(&size.to_le_bytes()); // uncompressed
    out.extend_from_slice(&u16::try_from(path.len()).unwrap_or(u16::MAX).to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // extra length
}
