# Feature labels: one ctest label per feature, beside the labels of the
# level or kind (l1..l4, fault, unit, tools, ...), so that the tests of a
# feature are found in one guess: ctest -L mpiio.
#   mpiio     ckpt_io = 2, L4 in one MPI-IO shared file
#   heads     head = 1, head ranks that post-process the checkpoints
#   config    the config file: keys, errors, templates, FTI's shapes
#   staging   files and checkpoints moved in the background:
#             enable_staging (FTI_SendFile), staging_mib and cow_checkpoint
#   watchdog  the watchdog of the library's collectives (FTI_WATCHDOG_S)
# The helpers of cmake/FTITesting.cmake give each test registered through
# them the labels of the lists below that name it. tools_labels (label
# structure) fails when a test whose script or scenario line turns a
# feature on (ckpt_io = 2, head = 1, ...) is missing from its list, or when
# a label lists no test.
set(FTI_FEATURE_LABELS mpiio heads config staging watchdog)

set(FTI_LABEL_mpiio
  test_l4_shared mpi_l4_store
  mpi_async_staging mpi_l1_two_jobs mpi_l4_archive mpi_l4_async mpi_l4_big mpi_l4_corrupt
  mpi_l4_direct mpi_l4_fanout mpi_l4_faults mpi_l4_inplace_tamper mpi_l4_recover mpi_l4_recover_ns
  tools_l4 tools_names
  conformance_ckpt_id_mismatch conformance_sem_head_l4_copy conformance_sem_inplace
  conformance_sem_keep_last
  conformance_fti16_import
  fault_heatdis_l4-mpiio-lose-all fault_heatdis_l4-mpiio-flip-global
  fault_heatdis_l4-mpiio-truncate-global)

set(FTI_LABEL_heads
  mpi_async_cow mpi_async_crash mpi_head_async mpi_l4_async mpi_l4_fanout
  conformance_ckpt_id_mismatch conformance_config_init_errors conformance_heads_world
  conformance_sem_head_endw
  conformance_fti16_import
  conformance_sem_head_l4_copy
  conformance_sem_head_l4_restart conformance_sem_head_report
  fortran_heatdis explain_log
  fault_heatdis_head-l2-lose-node fault_heatdis_head-l2-flip-partner
  fault_heatdis_head-l3-lose-2)

set(FTI_LABEL_config
  test_config test_ini mpi_ulfm_refused
  mpi_l1_config_errors mpi_l1_templates
  conformance_config_double_init conformance_config_fortran conformance_config_init_errors
  conformance_config_shapes conformance_sem_config_update
  fti_run_config_error)

set(FTI_LABEL_staging
  mpi_async_cow test_cow mpi_async_crash mpi_async_staging conformance_sem_stage conformance_stage_move
  gpu_emu_staging gpu_cuda_staging conformance_ckpt_id_mismatch)

set(FTI_LABEL_watchdog explain_log)

# fti_feature_labels(NAME OUT): the feature labels of test NAME, in OUT.
function(fti_feature_labels name out)
  set(found "")
  foreach(feature ${FTI_FEATURE_LABELS})
    if(name IN_LIST FTI_LABEL_${feature})
      list(APPEND found ${feature})
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
