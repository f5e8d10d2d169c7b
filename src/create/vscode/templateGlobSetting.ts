// gpuRental.templateGlob, read by the create feature that gives it meaning: which workspace files
// are templates (the file list, diagnostics).
import { DEFAULT_TEMPLATE_GLOB } from '../templateGlob';
import { gpuRentalSetting } from '../../core/vscode/settings';

export function readTemplateGlob(): string {
  return gpuRentalSetting<string>('templateGlob').value?.trim() || DEFAULT_TEMPLATE_GLOB;
}
