/**
 * The program that downloads IPA into a volume (ironic-ipa-downloader's get-resource.sh), which two kinds run:
 * an Ironic's init container and an IronicImageCache's downloads.
 */
import type { FeatureImage } from '../config.js';

/** Its image. */
export const IPA_DOWNLOADER_IMAGE: FeatureImage = {
  field: 'deployRamdiskDownloader',
  setting: 'RAMDISK_DOWNLOADER_IMAGE',
  default: 'quay.io/metal3-io/ironic-ipa-downloader:latest',
  container: 'ramdisk-downloader',
};
